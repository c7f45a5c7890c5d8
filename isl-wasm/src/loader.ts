// Loads the wasm module once per process, synchronously: the bytes are read
// and compiled on first use and the instance is shared by every Ctx (isl
// keeps all its state per isl_ctx, so contexts do not interfere).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RawModule } from './generated/isl';

/** Where setup puts the emscripten output (isl-wasm/dist/wasm/). */
const WASM_DIR = join(__dirname, 'wasm');

type Factory = (moduleArg: object) => unknown;

// The part of the WebAssembly JS API used here (lib "dom" is not in our tsconfig).
interface WasmInstance { readonly exports: object }
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => WasmInstance;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let shared: RawModule | undefined;

/** The process-wide isl module (compiled and instantiated on the first call). */
export function islModule(): RawModule {
  if (shared !== undefined) return shared;
  let factory: Factory;
  let bytes: Buffer;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    factory = require(join(WASM_DIR, 'isl.js')) as Factory;
    bytes = readFileSync(join(WASM_DIR, 'isl.wasm'));
  } catch (e) {
    throw new Error(`isl-wasm is not built (${(e as Error).message}); run isl-wasm/setup.sh`);
  }
  const compiled = new wasm.Module(bytes);
  const moduleArg = {
    // Instantiate synchronously from the module compiled above instead of
    // letting the glue fetch the file (Node 20 cannot fetch a path).
    instantiateWasm(imports: object, done: (instance: WasmInstance, module: object) => void) {
      const instance = new wasm.Instance(compiled, imports);
      done(instance, compiled);
      return instance.exports;
    },
    print: (text: string) => process.stdout.write(text + '\n'),
    printErr: (text: string) => process.stderr.write(text + '\n'),
  };
  // Built with -sWASM_ASYNC_COMPILATION=0: the module object is complete when the factory returns.
  factory(moduleArg);
  const raw = moduleArg as unknown as RawModule;
  if (typeof raw._isl_ctx_alloc !== 'function') throw new Error('isl-wasm: the wasm module did not initialise synchronously');
  shared = raw;
  return raw;
}
