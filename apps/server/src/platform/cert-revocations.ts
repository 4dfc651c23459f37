import type { Executor } from './db/database.js';

/**
 * What follows a certificate's revocation outside the certificates module: the client module
 * marks the client whose certificate it is revoked (and active again when a certificateHold is
 * lifted), in the transaction that revokes the certificate, so a client shows revoked at once,
 * not only when its agent calls next (an agent that never calls again would never show it).
 */
export interface CertificateRevocations {
  /** The certificate was revoked (`revoked` true) or its hold lifted (false), at `at`. */
  changed(trx: Executor, certId: string, revoked: boolean, at: string): Promise<void>;
}

declare module './module.js' {
  interface ModuleServices {
    /** The client module: clients follow their certificate's revocation. */
    certificateRevocations: CertificateRevocations;
  }
}
