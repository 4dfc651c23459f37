import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, type Gatekeeper } from '../../platform/http/route.js';
import type { CryptoService } from './crypto.service.js';

export function cryptoRoutes(app: FastifyInstance, gate: Gatekeeper, crypto: CryptoService): void {
  const c = api.crypto;
  registerCall(app, gate, c.encrypt, ({ actor, meta, body }) => crypto.encrypt(actor, meta, body));
  registerCall(app, gate, c.decrypt, ({ actor, meta, body }) => crypto.decrypt(actor, meta, body));
  registerCall(app, gate, c.sign, ({ actor, meta, body }) => crypto.sign(actor, meta, body));
  registerCall(app, gate, c.verify, ({ actor, meta, body }) => crypto.verify(actor, meta, body));
  registerCall(app, gate, c.mac, ({ actor, meta, body }) => crypto.mac(actor, meta, body));
  registerCall(app, gate, c.macVerify, ({ actor, meta, body }) => crypto.macVerify(actor, meta, body));
  registerCall(app, gate, c.dataKey, ({ actor, meta, body }) => crypto.dataKey(actor, meta, body));
  registerCall(app, gate, c.wrap, ({ actor, meta, body }) => crypto.wrap(actor, meta, body));
  registerCall(app, gate, c.unwrap, ({ actor, meta, body }) => crypto.unwrap(actor, meta, body));
  registerCall(app, gate, c.encapsulate, ({ actor, meta, body }) => crypto.encapsulate(actor, meta, body));
  registerCall(app, gate, c.decapsulate, ({ actor, meta, body }) => crypto.decapsulate(actor, meta, body));
  registerCall(app, gate, c.random, ({ actor, meta, body }) => crypto.random(actor, meta, body));
  registerCall(app, gate, c.batch, ({ actor, meta, body }) =>
    crypto.batch(actor, meta, body.operations as ({ op: string } & Record<string, unknown>)[]),
  );
  registerCall(app, gate, c.noop, () => Promise.resolve({ ok: true as const }));
}
