/**
 * An error the user caused or can fix (bad input, a missing tool, a bad flag).
 * The CLI prints it as one line, `tsopt: error: <input>: <message>`, and exits 1;
 * anything else that escapes is a bug in tsopt.
 */
export class TsoptError extends Error {
  constructor(message: string, readonly input?: string) {
    super(message);
    this.name = 'TsoptError';
  }
}

/**
 * A bug in tsopt that tsopt itself caught: a module its passes produced fails LLVM's verifier.
 * The CLI prints it as one line, `tsopt: internal error: <input>: <message>`, and exits 2,
 * like any other error that is not a TsoptError; the class only names the case.
 */
export class InvalidModuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidModuleError';
  }
}
