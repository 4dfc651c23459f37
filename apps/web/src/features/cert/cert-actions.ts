import { App } from 'antd';
import { caDownloadKinds } from '@ksp/contracts';
import {
  downloadCaFile,
  downloadCertFile,
  type CaDownloadKind,
  type CertDownloadKind,
  type CertRow,
  type LocalCaRow,
} from '../../api/cert';
import { useT } from '../../i18n/i18n';
import { saveDownload } from './cert-files';

/** Empty optional strings left out of a body (the contract refuses an empty country code). */
export function withoutEmpty<T extends object>(values: T): T {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== '' && value !== null && value !== undefined),
  ) as T;
}

/**
 * Downloads of CAs and certificates saved as files. A failed CSR download says "Error
 * downloading CSR file" (spec); other failures show the server's message.
 */
export function useDownloads() {
  const t = useT();
  const { message } = App.useApp();

  const save = async (
    kind: string,
    fetch: (silent: boolean) => Promise<Parameters<typeof saveDownload>[0]>,
  ) => {
    const csr = kind === 'csr';
    try {
      saveDownload(await fetch(csr));
    } catch {
      if (csr) void message.error(t('cert:ca.csrError'));
      // Other failures were shown by the client.
    }
  };

  return {
    ca: (id: string, kind: CaDownloadKind) => save(kind, (silent) => downloadCaFile(id, kind, { silent })),
    cert: (id: string, kind: CertDownloadKind, password?: string) =>
      save(kind, (silent) => downloadCertFile({ id, kind, ...(password ? { password } : {}) }, { silent })),
  };
}

/** The downloads a CA offers in its state: a pending CA has only its request. */
export function caDownloads(ca: Pick<LocalCaRow, 'state'>): readonly CaDownloadKind[] {
  return ca.state === 'pending' ? ['csr'] : caDownloadKinds;
}

/** The files of a certificate (the private key ones only for a downloadable generated key). */
export function certDownloads(
  cert: Pick<CertRow, 'source' | 'has_private_key' | 'exportable'>,
): readonly CertDownloadKind[] {
  const kinds: CertDownloadKind[] = ['cert-pem', 'cert-der', 'chain-pem', 'chain-p7b'];
  if (cert.source !== 'generated') kinds.push('csr');
  if (cert.has_private_key && cert.exportable) kinds.push('key-pkcs8', 'key-pkcs12');
  return kinds;
}

export const keyDownloadKinds: readonly CertDownloadKind[] = ['key-pkcs8', 'key-pkcs12'];

/** What may be done with a certificate in its status. */
export function certActionsFor(cert: Pick<CertRow, 'status'>) {
  return {
    revoke: cert.status === 'normal',
    resume: cert.status === 'hold',
    delete: cert.status === 'revoked' || cert.status === 'expired',
  };
}
