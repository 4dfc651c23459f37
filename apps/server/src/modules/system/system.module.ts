import { join } from 'node:path';
import { isLoopback } from '../../platform/config.js';
import { SealFile } from '../../platform/keyring/keyring.js';
import { createHsmSettings } from '../../platform/keyring/hsm-settings.js';
import type { KspModule } from '../../platform/module.js';
import { createSetupCode, SETUP_CODE_FILE } from './setup-code.js';
import { systemRoutes } from './system.routes.js';
import { createSystemService, type SystemService } from './system.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Initialization, activation and unsealing. */
    system: SystemService;
    /** The first-run code issued at this start (network address, not yet activated), or null. */
    setupCode: string | null;
  }
}

export const systemModule: KspModule = {
  name: 'system',
  register(ctx) {
    const { config } = ctx;
    const system = createSystemService({
      db: ctx.db,
      keyring: ctx.keyring,
      sealFile: new SealFile(join(config.dataDir, 'seal.key')),
      hsm: createHsmSettings(config.dataDir, config.pkcs11Dirs),
      log: ctx.log,
      clock: ctx.clock,
      audit: ctx.audit,
      users: ctx.use('users'),
      domains: ctx.use('domains'),
      roles: ctx.use('roles'),
      setupCode: createSetupCode(join(config.dataDir, SETUP_CODE_FILE)),
      networked: !isLoopback(config.host),
    });
    ctx.provide('system', system);
    ctx.provide('readiness', () => system.readiness());
    systemRoutes(ctx.app, ctx.gate, system);
  },
  async start(ctx) {
    const system = ctx.use('system');
    await system.unseal();
    ctx.provide('setupCode', await system.prepareSetupCode());
  },
};
