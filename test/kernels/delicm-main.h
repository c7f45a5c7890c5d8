/*
 * delicm-main.h -- the shared main of the delicm-listing* kernels: the same
 * inputs for every form, so all four print the same C. Include it after the
 * kernel, with SUM_OF_PRODUCTS defined as the kernel's name.
 */
#ifndef SUM_OF_PRODUCTS
#error "define SUM_OF_PRODUCTS as the kernel to call before including delicm-main.h"
#endif

int main(int argc, char **argv) {
  int n = arg_int(argc, argv, 1, 30);
  int k = arg_int(argc, argv, 2, 40);
  double *A = alloc_array((size_t)n * k, sizeof(double));
  double *B = alloc_array((size_t)k, sizeof(double));
  double *C = alloc_array((size_t)n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int kk = 0; kk < k; kk++)
      A[i * k + kk] = (double)((i * 5 + kk * 3) % 11) / 8.0;
  for (int kk = 0; kk < k; kk++)
    B[kk] = (double)(kk % 7) - 3.0;
  TIME_KERNEL(SUM_OF_PRODUCTS(n, k, PASS2(double, A, n, k), PASS1(double, B, k),
                              PASS1(double, C, n)));
  print_checksum("C", C, (size_t)n);
  free(A);
  free(B);
  free(C);
  return 0;
}
