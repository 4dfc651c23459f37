import { licenseFeatures } from '@ksp/contracts';
import type { KspModule } from '../../platform/module.js';
import { licenseRoutes } from './license.routes.js';
import { createLicenseService, type LicenseService } from './license.service.js';
import { VENDOR_PUBLIC_KEY, ed25519PublicKey } from './license.verify.js';

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Licences and the quotas they set (the key module checks them before making a key). */
    license: LicenseService;
  }
}

/** Settings › licenses: vendor-signed licences, the lock code, and quotas (README.md). */
export const licenseModule: KspModule = {
  name: 'license',
  register(ctx) {
    const trusted = [ed25519PublicKey(VENDOR_PUBLIC_KEY)];
    // Tests only: the key pair the suites mint with (KSP_LICENSE_TEST_PUBLIC_KEY).
    if (ctx.config.licenseTestPublicKey) {
      trusted.push(ed25519PublicKey(ctx.config.licenseTestPublicKey));
      // Said at every start: a production server must not run with it.
      ctx.log.warn('KSP_LICENSE_TEST_PUBLIC_KEY is set: licences signed by that test key are trusted');
    }
    const license = createLicenseService({ db: ctx.db, clock: ctx.clock, audit: ctx.audit, trusted });
    ctx.provide('license', license);
    // Creations handed to the group commit (keys) claim their quota in its transaction.
    for (const feature of licenseFeatures)
      ctx.journal.registerClaims(feature, (trx, _kind, asks) => license.claim(trx, feature, asks));
    licenseRoutes(ctx.app, ctx.gate, license);
  },
};
