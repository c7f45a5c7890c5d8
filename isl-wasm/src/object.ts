// The ownership model shared by every isl class.
//
// isl's __isl_take / __isl_keep / __isl_give never reach callers:
//  - methods never consume their receiver or arguments (the generated layer
//    copies each __isl_take argument before the call);
//  - every object belongs to its Ctx and to the innermost open scope
//    (`ctx.scope(fn)`), which frees everything made inside it except what
//    `fn` returns; `keep()` moves an object out to the context itself, and
//    `dispose()` frees one object at once;
//  - using a freed object throws IslUseAfterFreeError instead of touching
//    freed wasm memory.
import type { Ctx } from './ctx';

declare const islBrand: unique symbol;
/** A pointer into the wasm heap to an object of the isl C type K. */
export type IslPtr<K extends string> = number & { readonly [islBrand]: K };

/** Thrown when an isl function fails; `message` is isl's own message. */
export class IslError extends Error {
  constructor(
    message: string,
    /** The isl function that failed, e.g. `isl_set_read_from_str`. */
    readonly islFunction: string,
    /** `enum isl_error` value (see IslErrorCode in the generated enums). */
    readonly code: number,
  ) {
    super(message);
    this.name = 'IslError';
  }
}

/** Thrown when the context's operations quota (`Ctx.withMaxOperations`) ran out. */
export class IslQuotaError extends IslError {
  constructor(message: string, islFunction: string, code: number) {
    super(message, islFunction, code);
    this.name = 'IslQuotaError';
  }
}

/** Thrown when a disposed object, or an object of another context, is used. */
export class IslUseAfterFreeError extends Error {
  constructor(what: string) {
    super(what);
    this.name = 'IslUseAfterFreeError';
  }
}

/** The objects one scope owns; freed slots are `undefined` until compaction. */
export class Scope {
  items: (IslObject<string> | undefined)[] = [];
  live = 0;
}

export abstract class IslObject<K extends string> {
  #ptr: IslPtr<K>;
  /** @internal the scope owning this object and its slot there */
  scope: Scope;
  /** @internal */
  slot = 0;

  constructor(
    readonly ctx: Ctx,
    ptr: IslPtr<K>,
  ) {
    this.#ptr = ptr;
    this.scope = ctx.currentScope();
    ctx.adopt(this);
  }

  /** The raw pointer; throws once the object is disposed. */
  get ptr(): IslPtr<K> {
    const p = this.#ptr;
    if (p === 0) throw new IslUseAfterFreeError(`${this.constructor.name} used after dispose()`);
    return p;
  }

  /** Whether dispose() (or the end of its scope) has freed this object. */
  get disposed(): boolean {
    return this.#ptr === 0;
  }

  /** Frees the isl object now; later uses throw. Disposing twice is harmless. */
  dispose(): void {
    const p = this.#ptr;
    if (p === 0) return;
    this.#ptr = 0 as IslPtr<K>;
    this.ctx.release(this);
    this.freeRaw(p);
  }

  /** Moves this object out of its scope to the context: it lives until dispose() or ctx.dispose(). */
  keep(): this {
    this.ctx.moveTo(this, this.ctx.rootScope);
    return this;
  }

  /** @internal frees without bookkeeping (used by scopes that are closing) */
  freeFromScope(): void {
    const p = this.#ptr;
    if (p === 0) return;
    this.#ptr = 0 as IslPtr<K>;
    this.freeRaw(p);
  }

  protected abstract freeRaw(p: IslPtr<K>): void;
}
