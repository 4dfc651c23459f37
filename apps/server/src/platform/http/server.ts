import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import helmet from 'helmet';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { allCalls, Code, formatMessage, PRODUCT_VERSION, TOKEN_HEADER, VERSION_HEADER } from '@ksp/contracts';
import type { KspConfig } from '../config.js';
import { requestLanguage } from './language.js';
import { bodyIsOptional } from './route.js';
import { wellFormedTextValidator } from './well-formed-text.js';

export interface HttpOptions {
  logger?: boolean;
  /** Where log lines go (default stdout); tests read them to check what an outage logs. */
  logStream?: { write(line: string): void };
}

/** A registered route and the access it declares (for the route audit test). */
export interface RouteEntry {
  method: string;
  url: string;
  access: string | undefined;
}

/**
 * The HTTP server every module registers its calls on: TLS, logging with secrets redacted,
 * zod schemas, security and cache headers, uploads, the OpenAPI description at /docs, and a
 * refusal to start when an API route declares no access.
 */
export async function createHttpServer(
  config: KspConfig,
  options: HttpOptions,
): Promise<{ app: FastifyInstance; routes: readonly RouteEntry[] }> {
  const https = config.tls
    ? { cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) }
    : null;
  const app = Fastify({
    ...(https ? { https } : {}),
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(options.logStream ? { stream: options.logStream } : {}),
            redact: {
              paths: ['req.headers.token', 'req.headers.cookie', 'req.headers.authorization'],
              censor: '[redacted]',
            },
          },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
  }) as unknown as FastifyInstance;
  // No call's input reaches a handler with text that is not well-formed Unicode.
  app.setValidatorCompiler(wellFormedTextValidator(validatorCompiler));
  app.setSerializerCompiler(serializerCompiler);
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      routes.push({ method, url: route.url, access: route.config?.access });
    if (route.url.startsWith('/v1/') && !route.config?.access) {
      throw new Error(
        `Route ${route.method.toString()} ${route.url} declares no access (permission or 'public')`,
      );
    }
  });
  // Helmet's headers do not depend on the request (no CSP nonce): they are computed once and
  // every answer (API, console, docs) gets them in one step, without running the middleware.
  const securityHeaders = headersOf(
    helmet({
      frameguard: false,
      crossOriginEmbedderPolicy: false,
      crossOriginResourcePolicy: { policy: 'same-origin' },
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          // WebAssembly compiles (no JavaScript eval): the terminal recording player's emulator is wasm.
          scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          // The UKEY bridge (tools/ukey-bridge) listens on the administrator's own loopback.
          connectSrc: ["'self'", 'http://127.0.0.1:*', 'http://localhost:*'],
          frameAncestors: config.frameAncestors,
          objectSrc: ["'none'"],
          upgradeInsecureRequests: null,
        },
      },
      strictTransportSecurity: config.tls ? { maxAge: 31_536_000 } : false,
    }),
  );
  securityHeaders[VERSION_HEADER] = PRODUCT_VERSION;
  app.addHook('onRequest', (_req, reply, done) => {
    void reply.headers(securityHeaders);
    done();
  });
  // API answers carry session-bound data (keys, users, tokens): no cache, shared or private,
  // may keep them. Error answers too, wherever they come from.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.url.startsWith('/v1/') || reply.statusCode >= 400) void reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  await app.register(multipart, { limits: { files: 1, fields: 10, fileSize: 1024 * 1024 } });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'KSP API',
        version: PRODUCT_VERSION,
        description: 'Envelope { code, msg, data }; code 0 is success.',
      },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: TOKEN_HEADER } } },
    },
    transform: jsonSchemaTransform,
    // A call whose body is optional (logout, refresh, ...) says so: the generator marks every body required.
    transformObject: (documentObject) => {
      const doc =
        'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      const paths = (doc.paths ?? {}) as Record<
        string,
        Record<string, { requestBody?: { required?: boolean } }>
      >;
      for (const def of allCalls) {
        const op = paths[def.path]?.[def.method.toLowerCase()];
        if (op?.requestBody && bodyIsOptional(def)) op.requestBody.required = false;
      }
      return doc;
    },
  });
  // An empty JSON body is no body: calls whose body is optional accept it, others say which field is missing.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) {
      done(null, undefined);
      return;
    }
    // The default parser answers through `done`; it returns no promise to wait for.
    void defaultJson(req, body as string, done);
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  return { app, routes };
}

/**
 * Serves the built console from `webDir` (when there is one) with a history fallback: the
 * SPA's router owns every GET outside the API and /docs. Anything else unknown answers the
 * envelope's 404. Registered after the modules, so their routes come first.
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export async function serveConsole(app: FastifyInstance, webDir: string): Promise<void> {
  const hasWeb = existsSync(join(webDir, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDir,
      wildcard: false,
      index: ['index.html'],
      // The build writes .br and .gz copies (apps/web/scripts/precompress.mjs).
      preCompressed: true,
      cacheControl: false,
      // Files under /assets/ carry a hash of their content in their name: a browser keeps them
      // for a year without asking again. Everything else (index.html) is asked for each time.
      setHeaders: (reply, path) => {
        void reply.header('cache-control', /[\\/]assets[\\/]/.test(path) ? IMMUTABLE : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const lang = requestLanguage(req);
    const path = req.url.split('?')[0] ?? '';
    if (hasWeb && req.method === 'GET' && !path.startsWith('/v1/') && !path.startsWith('/docs')) {
      // History fallback: the SPA's router owns every other path.
      return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
    }
    return reply.status(404).send({
      code: Code.NOT_FOUND,
      msg: formatMessage('error.notFoundRoute', lang, { method: req.method, url: path }),
      data: null,
    });
  });
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** The headers a middleware that ignores the request (helmet here) sets, read once. */
function headersOf(middleware: Middleware): Record<string, string> {
  const headers: Record<string, string> = {};
  const answer = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  middleware({} as IncomingMessage, answer as unknown as ServerResponse, (err) => {
    failure = err;
  });
  if (failure)
    throw failure instanceof Error ? failure : new Error('The security headers could not be computed');
  return headers;
}
