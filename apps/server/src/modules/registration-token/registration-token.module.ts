import type { KspModule } from '../../platform/module.js';
import { registrationTokenRoutes } from './registration-token.routes.js';
import {
  createRegistrationTokenService,
  type RegistrationTokenService,
} from './registration-token.service.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Registration tokens (the CLI and test fixtures issue them). */
    registrationTokens: RegistrationTokenService;
  }
}

export const registrationTokenModule: KspModule = {
  name: 'registration-token',
  register(ctx) {
    const registrationTokens = createRegistrationTokenService({
      db: ctx.db,
      clock: ctx.clock,
      audit: ctx.audit,
    });
    ctx.provide('registrationTokens', registrationTokens);
    registrationTokenRoutes(ctx.app, ctx.gate, registrationTokens);
  },
};
