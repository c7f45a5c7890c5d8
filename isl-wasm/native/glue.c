/* Small C helpers linked into the isl wasm module next to libisl.
 * They exist only for what isl itself does not report. */
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
