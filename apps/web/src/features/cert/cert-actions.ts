import { App } from 'antd';
import { caDownloadKinds, certDownloadKinds, keyDownloadKinds } from '@ksp/contracts';
import {
  downloadCaFile,
  downloadCertFile,
  type CaDownloadKind,
  type CertDownloadKind,
  type CertRow,
  type KeyDownloadKind,
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
 * downloading CSR file" (docs/console.md#errors); other failures show the server's message.
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
    cert: (id: string, kind: CertDownloadKind) =>
      save(kind, (silent) => downloadCertFile(id, kind, { silent })),
  };
}

/** The downloads a CA offers in its state: a pending CA has only its request. */
export function caDownloads(ca: Pick<LocalCaRow, 'state'>): readonly CaDownloadKind[] {
  return ca.state === 'pending' ? ['csr'] : caDownloadKinds;
}

/** The files of a certificate: its CSR only when it came from one. */
export function certDownloads(cert: Pick<CertRow, 'source'>): readonly CertDownloadKind[] {
  return cert.source === 'generated' ? certDownloadKinds.filter((kind) => kind !== 'csr') : certDownloadKinds;
}

/** The private key files: only for a key the server generated as exportable, and for cert:export. */
export function keyDownloads(
  cert: Pick<CertRow, 'has_private_key' | 'exportable'>,
  mayExport: boolean,
): readonly KeyDownloadKind[] {
  return mayExport && cert.has_private_key && cert.exportable ? keyDownloadKinds : [];
}

export function isKeyDownload(kind: string): kind is KeyDownloadKind {
  return (keyDownloadKinds as readonly string[]).includes(kind);
}

/** What may be done with a certificate in its status. */
export function certActionsFor(cert: Pick<CertRow, 'status'>) {
  return {
    revoke: cert.status === 'normal',
    resume: cert.status === 'hold',
    delete: cert.status === 'revoked' || cert.status === 'expired',
  };
}
