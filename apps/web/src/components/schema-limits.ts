import type { z } from 'zod';

/** The bounds a contract schema declares: a number's range, a string's or a list's length, a pattern. */
export interface SchemaLimits {
  /** The least number (inclusive), or the least length of a string or a list. */
  min?: number;
  /** The greatest number (inclusive), or the greatest length of a string or a list. */
  max?: number;
  /** The pattern a string must match. */
  pattern?: RegExp;
}

type Wrapper = z.ZodType & { unwrap(): z.ZodType };
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional']);

/** The schema under its optional, nullable and default wrappers. */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (WRAPPERS.has(inner.type)) inner = (inner as Wrapper).unwrap();
  return inner;
}

interface CheckDef {
  check?: string;
  value?: number | bigint;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  length?: number;
  format?: string;
  pattern?: RegExp;
}

const checksOf = (schema: z.ZodType): CheckDef[] =>
  (schema._zod.def.checks ?? []).map((c) => c._zod.def as CheckDef);

/**
 * The bounds of a field of the contract, so a form's rules and inputs take them from the one
 * definition: `min` and `max` of `z.number().int().min(1).max(60)` are 1 and 60, of
 * `z.string().max(64)` or `z.array(…).max(20)` the lengths; `pattern` is a `.regex()`'s.
 * A bound the schema does not declare is absent.
 */
export function limitsOf(schema: z.ZodType): SchemaLimits {
  const inner = unwrapSchema(schema);
  const limits: SchemaLimits = {};
  // An integer's exclusive bound is the next integer in; another number's stays as declared.
  const step = checksOf(inner).some((c) => c.check === 'number_format' && /int/.test(c.format ?? '')) ? 1 : 0;
  for (const c of checksOf(inner)) {
    if (c.check === 'greater_than' && typeof c.value === 'number')
      limits.min = c.inclusive ? c.value : c.value + step;
    else if (c.check === 'less_than' && typeof c.value === 'number')
      limits.max = c.inclusive ? c.value : c.value - step;
    else if (c.check === 'min_length') limits.min = c.minimum;
    else if (c.check === 'max_length') limits.max = c.maximum;
    else if (c.check === 'length_equals') limits.min = limits.max = c.length;
    else if (c.check === 'string_format' && c.format === 'regex') limits.pattern = c.pattern;
  }
  return limits;
}

/**
 * The schema of a field at a path of object schemas (`['file_settings', 'max_file_size_kb']`);
 * throws for a path the schema lacks, so a form cannot name a field the contract does not have.
 */
export function schemaAt(schema: z.ZodType, path: readonly string[]): z.ZodType {
  let at = schema;
  for (const name of path) {
    const inner = unwrapSchema(at);
    const field =
      inner.type === 'object'
        ? ((inner as z.ZodObject).shape as Record<string, z.ZodType | undefined>)[name]
        : undefined;
    if (!field) throw new Error(`The contract schema has no field '${path.join('.')}'`);
    at = field;
  }
  return at;
}

/** The bounds of the field at a path of an object schema: `limitsAt(ProfileSettings, ['connect_timeout_s'])`. */
export const limitsAt = (schema: z.ZodType, path: readonly string[]): SchemaLimits =>
  limitsOf(schemaAt(schema, path));
