import { createAuditWriter, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { ModuleServices } from '../../platform/module.js';
import { createConnections, type SshClient } from './ssh-server.connection.js';
import { createProbes } from './ssh-server.probes.js';
import { createRotation } from './ssh-server.rotation.js';
import { createServerScope } from './ssh-server.scope.js';
import { createServerSettings } from './ssh-server.settings.js';
import type { SshTargetPolicy } from './ssh-server.targets.js';
import { createTerminalAccess } from './ssh-server.terminal-access.js';

/**
 * Servers of the SMS sub-console (docs/modules.md#ssh-servers): settings, the pinned host key, the
 * connection test and the password rotation. Credentials are the credential module's,
 * reached through `ModuleServices['credentials']`; every query is limited to the caller's
 * domain (another domain's server is "not found").
 */
export function createSshServerService(deps: {
  db: Db;
  clock: Clock;
  /** The audit writer (default: one stamping records with `clock`, as the module context's does). */
  audit?: AuditWriter;
  credentials: () => ModuleServices['credentials'];
  /** The licence's quota of SMS servers (modules/license), claimed in the creating transaction. */
  license?: () => ModuleServices['license'] | undefined;
  ssh?: SshClient;
  /** Where connections may go (KSP_SSH_ALLOWED_NETWORKS) and their timeout. */
  policy?: SshTargetPolicy;
}) {
  const audit = deps.audit ?? createAuditWriter(deps.clock);
  const scope = createServerScope({ db: deps.db, audit });
  const connections = createConnections(deps);
  const parts = { ...deps, audit, scope, connections };
  return {
    ...createServerSettings(parts),
    ...createProbes(parts),
    ...createRotation(parts),
    ...createTerminalAccess(parts),
  };
}

export type SshServerService = ReturnType<typeof createSshServerService>;
