import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allCalls, type CallDef, Code } from '@ksp/contracts';
import { ADMIN, initialize, login, startServer, type TestServer } from '../../test/harness.js';
import { unterminatedBody } from '../../test/multipart.js';

/**
 * Property: whatever an administrator sends to any call of the contract — wrong types,
 * missing fields, huge strings, nested junk, arrays for objects, text that is not JSON,
 * nonsense queries, broken multipart — the server never answers 500, and every code-4000
 * answer names the field at fault. SQLite only and few runs: it runs on every push.
 */
const calls = allCalls;
const RUNS_PER_CALL = 12;

/** The top-level field names of an object schema (so that wrong values hit real fields). */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  let s: unknown = schema;
  for (let i = 0; i < 4 && s; i++) {
    if (s instanceof z.ZodObject) return Object.keys(s.shape);
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap();
    else if (s instanceof z.ZodPipe) s = s.in;
    else return [];
  }
  return [];
}

const junk: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ maxLength: 40 }),
    fc.constantFrom('x'.repeat(100_000), '', ' ', '\u0000', '__proto__', '-1', 'NaN', '1e309'),
    // Lone UTF-16 surrogates (not well-formed text), and a well-formed pair.
    fc.constantFrom('\uD800', 'a\uDC00b', 'x\uDBFF', '\uD83D\uDE00'),
    fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, true, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;

type Request = {
  kind: string;
  contentType?: string;
  payload?: string | Buffer;
  query?: string;
  /** The body is a stream that ends without the closing boundary once the server reads it. */
  unterminated?: boolean;
};

const boundary = 'ksp-prop';

/** Multipart bodies whose last part has no closing boundary, sent as `unterminatedBody` streams. */
const UNTERMINATED = [
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n`,
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.kspb"\r\n\r\nKSPB`,
  `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nx`,
];

function requests(def: CallDef): fc.Arbitrary<Request> {
  const fields = fieldsOf(def.body);
  const queryFields = fieldsOf(def.query);
  const wrongFields =
    fields.length > 0
      ? fc.dictionary(fc.constantFrom(...fields), junk, { maxKeys: fields.length })
      : fc.constant({});
  const json = (kind: string, value: fc.Arbitrary<unknown>) =>
    value.map((v): Request => ({ kind, contentType: 'application/json', payload: JSON.stringify(v) }));
  const queryValue = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom('-1', '0', '1e309', 'NaN', '99999999999999999999', 'x'.repeat(5000), '[]', '%00'),
  );
  return fc.oneof(
    json('junk body', junk),
    json('wrong field values', wrongFields),
    json('missing fields', fc.constant({})),
    json('array for object', fc.array(wrongFields, { maxLength: 2 })),
    fc
      .string({ maxLength: 30 })
      .filter((text) => {
        try {
          JSON.parse(text);
          return false;
        } catch {
          return true;
        }
      })
      .map((text): Request => ({ kind: 'not JSON', contentType: 'application/json', payload: text })),
    fc
      .array(fc.tuple(fc.constantFrom(...queryFields, 'page', 'x', 'id', ''), queryValue), {
        maxLength: 4,
      })
      .map((pairs): Request => ({
        kind: 'bad query',
        query: pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
      })),
    fc
      .tuple(
        fc.constantFrom('multipart/form-data', `multipart/form-data; boundary=${boundary}`),
        fc.constantFrom(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG`,
          `--${boundary}\r\nContent-Disposition: form-da`,
          `--${boundary}--\r\n`,
          'not multipart at all',
          `--${boundary}\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nx\r\n--${boundary}--\r\n`,
        ),
      )
      .map(([contentType, payload]): Request => ({ kind: 'broken multipart', contentType, payload })),
    fc.constantFrom(...UNTERMINATED).map((payload): Request => ({
      kind: 'unterminated multipart',
      contentType: `multipart/form-data; boundary=${boundary}`,
      payload,
      unterminated: true,
    })),
  );
}

/** A lone surrogate, alone, inside text, and deeper in the field (`field.x.0`). */
const LONE_SURROGATES: unknown[] = ['\uD800', 'name \uDC00', { x: ['x\uDBFF'] }];

/**
 * The fixed hostile requests every call gets once, whatever the random runs pick, and the
 * field the answer must name (null: any field).
 */
function fixedRequests(def: CallDef): { req: Request; names: string | null }[] {
  const fixed: { req: Request; names: string | null }[] = UNTERMINATED.map((payload) => ({
    req: {
      kind: 'unterminated multipart',
      contentType: `multipart/form-data; boundary=${boundary}`,
      payload,
      unterminated: true,
    },
    names: def.multipart ? 'file' : null,
  }));
  if (def.multipart) return fixed;
  for (const field of fieldsOf(def.body)) {
    for (const value of LONE_SURROGATES) {
      fixed.push({
        req: {
          kind: `lone surrogate in ${field}`,
          contentType: 'application/json',
          payload: JSON.stringify({ [field]: value }),
        },
        names: field,
      });
    }
  }
  return fixed;
}

/** "field: rule" or "a.b.0: rule" (en), "field：rule" (zh); body/query when the whole input is at fault. */
const NAMES_A_FIELD = /^([A-Za-z_][\w]*(\.[\w]+)*|请求体|查询参数)(:|：)/;

describe('every call of the contract, fed invalid input by an administrator', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startServer('sqlite');
    ({ token } = await initialize(server));
  });
  afterAll(async () => server?.close());

  /** Sends one request; answers the envelope (null: signed in again, or a file answered). */
  async function send(def: CallDef, req: Request, lang: string) {
    const payload =
      req.payload === undefined || def.method === 'GET'
        ? undefined
        : req.unterminated
          ? unterminatedBody(String(req.payload))
          : req.payload;
    const res = await server.app.inject({
      method: def.method,
      url: req.query ? `${def.path}?${req.query}` : def.path,
      headers: {
        token,
        'accept-language': lang,
        ...(req.contentType ? { 'content-type': req.contentType } : {}),
      },
      ...(payload !== undefined ? { payload } : {}),
    });
    if (res.statusCode === 401) {
      // Logout and token refresh revoke the token they are called with: sign in again.
      token = await login(server, ADMIN.username, ADMIN.password);
      return null;
    }
    const where = `${def.method} ${def.path} (${req.kind})`;
    expect(res.statusCode, `${where}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    // A download call answers its file, not the envelope, when the input was acceptable.
    if (def.download && res.statusCode === 200 && !res.body.startsWith('{"code"')) return null;
    const body = res.json<{ code: number; msg: string }>();
    if (body.code === Code.INVALID) expect(body.msg, where).toMatch(NAMES_A_FIELD);
    return { where, body };
  }

  it('never answers 500, and names the field in every code-4000 answer', async () => {
    for (const def of calls) {
      await fc.assert(
        fc.asyncProperty(requests(def), fc.constantFrom('en', 'zh-CN'), async (req, lang) => {
          await send(def, req, lang);
        }),
        { numRuns: RUNS_PER_CALL, seed: 20_260_901 },
      );
    }
  });

  it('answers every call unterminated multipart and lone surrogates in each field with 4000 naming the field', async () => {
    for (const def of calls) {
      if (def.method === 'GET') continue;
      for (const { req, names } of fixedRequests(def)) {
        for (const lang of ['en', 'zh-CN']) {
          const answer = await send(def, req, lang);
          if (!answer || names === null) continue;
          // Nothing with such text goes through: refused before validation (a token kind, the
          // system scope), or 4000 naming the very field.
          expect(answer.body.code, `${answer.where}: ${answer.body.msg}`).not.toBe(Code.OK);
          if (answer.body.code === Code.INVALID)
            expect(answer.body.msg, answer.where).toMatch(new RegExp(`^${names}(\\.[\\w.]+)?(:|：)`));
        }
      }
    }
  });
});
