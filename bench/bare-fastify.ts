/**
 * The baseline for the request path: a bare Fastify route that answers the same envelope as
 * the authenticated no-op (`GET /v1/ksp/crypto/ping`), with no logger, hooks or schemas.
 * bench/run.ts starts it as its own process beside the KSP server and loads both in one run.
 */
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: false });
app.get('/bare', (_req, reply) => reply.send({ code: 0, msg: 'ok', data: { ok: true } }));
await app.listen({ host: '127.0.0.1', port });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
