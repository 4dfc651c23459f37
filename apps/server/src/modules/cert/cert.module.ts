import type { AddressInfo } from 'node:net';
import type { KspModule } from '../../platform/module.js';
import { certRoutes } from './cert.routes.js';
import { createCertService, type CertService } from './cert.service.js';
import { certificateColumns } from './cert.store.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Certificates: later areas (client enrolment, KMIP, agent TLS) issue and verify through it. */
    certs: CertService;
  }
}

/** Certificates and PKI: local CAs on key-store keys, issued certificates, CRL, OCSP, external CAs, `/sign-cert`. */
export const certModule: KspModule = {
  name: 'cert',
  register(ctx) {
    const { app, config } = ctx;
    const pkiBaseUrl = () => {
      if (config.pkiUrl) return config.pkiUrl;
      const address = app.server.address() as AddressInfo | null;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      return `${config.tls ? 'https' : 'http'}://${host}:${address?.port ?? config.port}`;
    };
    // Certificates issued together share one transaction and one flush (group commit).
    ctx.journal.registerTable({ table: 'cert_certificate', columns: certificateColumns });
    const certs = createCertService({
      db: ctx.db,
      clock: ctx.clock,
      journal: ctx.journal,
      audit: ctx.audit,
      vault: () => ctx.use('keyVault'),
      tokens: () => ctx.use('registrationTokens'),
      ukeys: () => ctx.use('ukeys'),
      pkiBaseUrl,
      revocations: () => ctx.maybeUse('certificateRevocations'),
      log: ctx.log,
      domainName: async (id) => (await ctx.use('domains').findDomainById(ctx.db, id))?.name,
    });
    ctx.provide('certs', certs);
    certRoutes(app, ctx.gate, certs);
    ctx.jobs.register({
      name: 'cert.crl-refresh',
      every: 3600,
      run: async () => void (await certs.refreshCrls()),
    });
    ctx.onClose(() => certs.close());
  },
};
