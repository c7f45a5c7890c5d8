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
