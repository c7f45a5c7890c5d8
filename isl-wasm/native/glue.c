/* Small C helpers linked into the isl wasm module next to libisl.
 * They exist only for what isl itself does not report. */
#include <malloc.h>
#include <emscripten/emscripten.h>

/* Bytes currently allocated by malloc inside the wasm heap; the leak test
 * watches this number stay bounded over many isl operations. */
EMSCRIPTEN_KEEPALIVE unsigned long tsopt_heap_in_use(void)
{
	struct mallinfo info = mallinfo();
	return (unsigned long) info.uordblks;
}
