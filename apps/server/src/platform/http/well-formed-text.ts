import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { isWellFormedText, messageKeys } from '@ksp/contracts';
import type { ValidationIssue } from './validation-message.js';

/** The rule a lone UTF-16 surrogate breaks (validation-message.ts words it). */
export const MALFORMED_TEXT = 'malformed_text';

/** At most this many fields are named in one answer (describeIssues names five). */
const MAX_REPORTED = 5;

/** A key the answer can name (`a.b.0`); below any other the path stops at its object. */
const NAMEABLE = /^[A-Za-z_]\w*$|^\d+$/;

/**
 * The paths (`/a/0/b`) of the strings in `data` that are not well-formed UTF-16 (a lone
 * surrogate, which JSON's `\ud800` escape can carry), each once. A key that is not well-formed,
 * or a value under a key that is no field name, is reported at its object. Walked without
 * recursion: a body may nest as deep as its size allows.
 */
export function malformedTextPaths(data: unknown): string[] {
  const found: string[] = [];
  const report = (path: string) => {
    if (!found.includes(path)) found.push(path);
  };
  // `fixed`: under a key that is no field name, the path names the object above it only.
  const stack: { value: unknown; path: string; fixed?: boolean }[] = [{ value: data, path: '' }];
  while (stack.length > 0 && found.length < MAX_REPORTED) {
    const { value, path, fixed } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormedText(value)) report(path);
    } else if (Array.isArray(value)) {
      const items = value as unknown[];
      for (let i = items.length - 1; i >= 0; i--)
        stack.push({ value: items[i], path: fixed ? path : `${path}/${i}`, fixed });
    } else if (value !== null && typeof value === 'object') {
      const entries: [string, unknown][] = Object.entries(value);
      if (entries.some(([key]) => !isWellFormedText(key))) {
        report(path);
        continue;
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const nameable = !fixed && NAMEABLE.test(key);
        stack.push({ value: child, path: nameable ? `${path}/${key}` : path, fixed: !nameable });
      }
    }
  }
  return found;
}

const knownKeys: ReadonlySet<string> = new Set(messageKeys);

/**
 * Every call's input (body, query, params) is refused with 4000 naming the field when a string
 * in it is not well-formed Unicode, so no service, encoder or database ever receives one. A
 * field whose contract states its own rule for it (a refinement whose message is a message
 * key, e.g. `cert.invalidName`) answers that rule; any other answers `malformed_text`.
 */
export function wellFormedTextValidator<T>(inner: FastifySchemaCompiler<T>): FastifySchemaCompiler<T> {
  return (route) => {
    const validate = inner(route);
    return (data: unknown) => {
      const paths = malformedTextPaths(data);
      if (paths.length === 0) return validate(data);
      // The contract's zod validation answers synchronously (an object, never a promise).
      const result = validate(data) as { error?: unknown };
      const own = Array.isArray(result.error) ? (result.error as ValidationIssue[]) : [];
      const issues: (ValidationIssue & { schemaPath?: string })[] = paths.map(
        (path) =>
          own.find((issue) => issue.instancePath === path && knownKeys.has(issue.message)) ?? {
            keyword: MALFORMED_TEXT,
            instancePath: path,
            schemaPath: `#${path}/${MALFORMED_TEXT}`,
            message: 'is not well-formed Unicode text',
            params: {},
          },
      );
      return { error: issues as unknown as FastifySchemaValidationError[] };
    };
  };
}
