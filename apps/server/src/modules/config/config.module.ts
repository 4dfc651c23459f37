import type { KspModule } from '../../platform/module.js';
import { configRoutes } from './config.routes.js';
import { createConfigService, type ConfigService } from './config.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** The configuration items (title, logo, session settings shown in the console). */
    config: ConfigService;
  }
}

export const configModule: KspModule = {
  name: 'config',
  register(ctx) {
    const config = createConfigService({ db: ctx.db, clock: ctx.clock, audit: ctx.audit });
    ctx.provide('config', config);
    configRoutes(ctx.app, ctx.gate, config);
  },
  async start(ctx) {
    await ctx.use('config').ensureDefaults(ctx.clock().toISOString());
  },
};
