import { createSyslogForwarder } from './syslog.forward.js';
import { createSyslogReceivers } from './syslog.receivers.js';

/**
 * Syslog forwarding (docs/modules.md#syslog-forwarding, README.md): the receivers' calls
 * (`syslog.receivers.ts`) and the delivery round (`syslog.forward.ts`), behind one service.
 */
export function createSyslogService(
  deps: Parameters<typeof createSyslogReceivers>[0] & Parameters<typeof createSyslogForwarder>[0],
) {
  return { ...createSyslogReceivers(deps), ...createSyslogForwarder(deps) };
}

export type SyslogService = ReturnType<typeof createSyslogService>;
