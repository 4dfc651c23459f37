import type { KspModule } from '../../platform/module.js';
import { countAudit, countFailedLogins, recentAudit } from './audit.store.js';

/** What other modules read of the audit log (the records are written by `platform/audit.ts`). */
const auditLog = { countAudit, countFailedLogins, recentAudit };

declare module '../../platform/module.js' {
  interface ModuleServices {
    /** Audit figures and the latest records; the dashboard shows them. */
    auditLog: typeof auditLog;
  }
}

export const auditModule: KspModule = {
  name: 'audit',
  register(ctx) {
    ctx.provide('auditLog', auditLog);
  },
};
