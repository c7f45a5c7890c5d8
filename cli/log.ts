// Logging through pino, to stderr only: stdout may carry bitcode.
// People get one readable line per record (`tsopt: debug: pass finished pass=verify ms=0.4`);
// `--log-format=json` gives pino's own JSON lines for tools.
import pino from 'pino';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'text' | 'json';

/** Where log lines go: a function taking one finished line (newline included). */
export type LineSink = (line: string) => void;

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };
const RECORD_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** pino's JSON record as `tsopt: <level>: <msg> key=value ...`. */
export function formatRecord(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = LEVEL_NAMES[Number(record.level)] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([k]) => !RECORD_KEYS.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [`tsopt: ${level}: ${String(record.msg ?? '')}`, ...fields].join(' ') + '\n';
}

export function createLogger(level: LogLevel, format: LogFormat, sink: LineSink): pino.Logger {
  const destination: pino.DestinationStream = {
    write: (line: string) => sink(format === 'json' ? line : formatRecord(line)),
  };
  return pino({ level, base: undefined, timestamp: format === 'json' }, destination);
}
