import { createHsmSettings } from '../../platform/keyring/hsm-settings.js';
import type { KspModule } from '../../platform/module.js';
import { hsmRoutes } from './hsm.routes.js';
import { createHsmService, type HsmService } from './hsm.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The HSM root of trust: bind, unbind, test, certificates (README.md). */
    hsm: HsmService;
  }
}

/** Settings › HSM: the root key wrapped by a PKCS#11 token instead of the seal file. */
export const hsmModule: KspModule = {
  name: 'hsm',
  register(ctx) {
    const hsm = createHsmService({
      db: ctx.db,
      clock: ctx.clock,
      keyring: ctx.keyring,
      settings: createHsmSettings(ctx.config.dataDir),
      system: ctx.use('system'),
    });
    ctx.provide('hsm', hsm);
    hsmRoutes(ctx.app, ctx.gate, hsm);
  },
};
