/* Small C helpers linked into the isl wasm module next to libisl.
 * They exist only for what isl itself does not report or bound. */
#include <malloc.h>
#include <emscripten/emscripten.h>
#include <isl_ctx_private.h>

/* Bytes currently allocated by malloc inside the wasm heap; the leak test
 * watches this number stay bounded over many isl operations. */
EMSCRIPTEN_KEEPALIVE unsigned long tsopt_heap_in_use(void)
{
	struct mallinfo info = mallinfo();
	return (unsigned long) info.uordblks;
}

/* The operations isl has counted in "ctx" since the last
 * isl_ctx_reset_operations (isl 0.25 has no getter): what the quota of
 * isl_ctx_set_max_operations is checked against, so that nested quotas
 * can be charged to the enclosing one. */
EMSCRIPTEN_KEEPALIVE unsigned long tsopt_ctx_operations(isl_ctx *ctx)
{
	return ctx ? ctx->operations : 0;
}

/* Work isl does not count. isl's quota counts the allocations isl makes
 * itself (isl_malloc_or_die) and simplex pivots, not the allocations of
 * imath, its big-integer library: on sets with subscripts modulo 2^32 one
 * isl_set_lexmin_pw_multi_aff made 20 million allocations for 200,000
 * counted operations (8.6 s; detect-unsigned's alias check), and with no
 * quota ran for minutes. While a quota is open on "metered", every
 * allocations_per_operation allocations that isl did not count itself are
 * charged to it as one operation, so the quota bounds that work too.
 * An allocation is taken as isl's own when the count moved since the
 * previous one (isl_malloc_or_die counts, then allocates). */
static isl_ctx *metered;
static unsigned long allocations_per_operation = 4;
static unsigned long uncounted;
static unsigned long seen_operations;

EMSCRIPTEN_KEEPALIVE void tsopt_meter(isl_ctx *ctx)
{
	metered = ctx;
	uncounted = 0;
	seen_operations = ctx ? ctx->operations : 0;
}

/* 0: charge nothing (isl's own count only). */
EMSCRIPTEN_KEEPALIVE void tsopt_set_allocations_per_operation(unsigned long n)
{
	allocations_per_operation = n;
}

static void charge_allocation(void)
{
	isl_ctx *ctx = metered;
	if (!ctx || allocations_per_operation == 0)
		return;
	if (ctx->operations != seen_operations) {
		seen_operations = ctx->operations;
		return;
	}
	if (++uncounted < allocations_per_operation)
		return;
	uncounted = 0;
	seen_operations = ++ctx->operations;
}

/* Emscripten's malloc, calloc and realloc are weak aliases of dlmalloc's;
 * these take their place and count. */
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);

void *malloc(size_t n)
{
	charge_allocation();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	charge_allocation();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	charge_allocation();
	return __libc_realloc(p, n);
}
