import { createHsmSettings } from '../../platform/keyring/hsm-settings.js';
import { RootUnavailable } from '../../platform/keyring/root-of-trust.js';
import type { KspModule } from '../../platform/module.js';
import { hsmRoutes } from './hsm.routes.js';
import { createHsmService, type HsmService } from './hsm.service.js';

/**
 * Secrets sealed by the token key of the bound HSM (an HSM-bound backup's): only a server
 * reaching the same token key opens them. Throws `RootUnavailable` when no HSM is bound or
 * the token does not answer.
 */
export interface HsmSecrets {
  bound(): Promise<boolean>;
  seal(plain: Buffer, aad: string): Promise<{ wrapped: string; token: string }>;
  open(wrapped: string, aad: string): Promise<Buffer>;
}

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The HSM root of trust: bind, unbind, test, certificates (README.md). */
    hsm: HsmService;
    hsmSecrets: HsmSecrets;
  }
}

/** Settings › HSM: the root key wrapped by a PKCS#11 token instead of the seal file. */
export const hsmModule: KspModule = {
  name: 'hsm',
  register(ctx) {
    const settings = createHsmSettings(ctx.config.dataDir, ctx.config.pkcs11Dirs);
    const hsm = createHsmService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
      keyring: ctx.keyring,
      settings,
      pkcs11Dirs: ctx.config.pkcs11Dirs,
      system: ctx.use('system'),
    });
    ctx.provide('hsm', hsm);
    const boundRoot = async () => {
      const row = await settings.row(ctx.db);
      if (!row?.bound_at) throw new RootUnavailable('hsm.failed', { detail: 'no HSM is bound' });
      return settings.rootOf(row);
    };
    ctx.provide('hsmSecrets', {
      bound: async () => Boolean((await settings.row(ctx.db))?.bound_at),
      seal: async (plain, aad) => (await boundRoot()).sealSecret(plain, aad),
      open: async (wrapped, aad) => (await boundRoot()).openSecret(wrapped, aad),
    });
    hsmRoutes(ctx.app, ctx.gate, hsm);
  },
};
