/*
 * detect-linked-list -- walks a singly linked list, scaling every node's value
 * and summing them, then (in a separate counted loop) stores the node values
 * into an array in list order.
 *
 * Pins: issue 4, a loop whose trip count and addresses come from loaded
 * pointers (p = p->next): no induction variable, no affine bound, no
 * loop-invariant base pointer.
 * Build/run:  clang-14 -O3 detect-linked-list.c -o l && ./l [n]
 * Expected:   the walk in kernel_list_scale is rejected: cause
 *             "non-affine-loop-bound" (the exit depends on a loaded pointer;
 *             Polly reports the loop's trip count as not computable), with the
 *             accesses p->value also non-affine. No SCoP in that function.
 *
 * tsopt-kernel: category=detection args=50 alt=51 bench=8000000 vla=no
 */
#include "kernel.h"

struct node {
  double value;
  struct node *next;
};

KERNEL double kernel_list_scale(struct node *head, double factor) {
  double sum = 0.0;
  for (struct node *p = head; p != NULL; p = p->next) {
    p->value *= factor;
    sum += p->value;
  }
  return sum;
}

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 50);
  struct node *nodes = alloc_array((size_t)n, sizeof(struct node));
  double *values = alloc_array((size_t)n, sizeof(double));
  /* Link the nodes in a scrambled order (stride 7 modulo n when coprime). */
  int stride = (n % 7 == 0) ? 1 : 7;
  struct node *head = NULL;
  for (int k = 0; k < n; k++) {
    struct node *nd = &nodes[(k * stride) % n];
    nd->value = (double)(k % 9) + 0.25;
    nd->next = head;
    head = nd;
  }
  double sum = 0.0;
  TIME_KERNEL(sum = kernel_list_scale(head, 1.5));
  int k = 0;
  for (struct node *p = head; p != NULL; p = p->next)
    values[k++] = p->value;
  printf("sum: %.6e\n", sum);
  print_checksum("values", values, (size_t)n);
  free(nodes);
  free(values);
  return 0;
}
