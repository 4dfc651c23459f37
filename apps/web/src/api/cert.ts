import { api, type BodyOf, type DataOf, type QueryOf } from '@ksp/contracts';
import { call, type CallOptions } from './client';

export type LocalCaRow = DataOf<typeof api.cert.caList>['data'][number];
export type LocalCaDetail = DataOf<typeof api.cert.caDetail>;
export type CertRow = DataOf<typeof api.cert.list>['data'][number];
export type CertDetail = DataOf<typeof api.cert.detail>;
export type ExternalCaRow = DataOf<typeof api.cert.externalList>['data'][number];
export type FileDownload = DataOf<typeof api.cert.caDownload>;
export type SignResult = DataOf<typeof api.cert.sign>;
export type IssueBody = BodyOf<typeof api.cert.issue>;
export type CaDownloadKind = QueryOf<typeof api.cert.caDownload>['kind'];
export type CertDownloadKind = QueryOf<typeof api.cert.download>['kind'];
export type KeyDownloadKind = BodyOf<typeof api.cert.downloadKey>['kind'];
export type UkeyIssueResult = DataOf<typeof api.cert.ukeyIssue>;

/** Query keys of the certificates area: invalidating `all` refreshes CAs, certificates and external CAs. */
export const certKeys = {
  all: ['cert'] as const,
  cas: ['cert', 'ca'] as const,
  caDetail: (id: string) => ['cert', 'ca', 'detail', id] as const,
  /** Every active CA (the selects of the issue and sign forms, the list filter). */
  activeCas: ['cert', 'ca', 'active'] as const,
  certs: ['cert', 'certs'] as const,
  certDetail: (id: string) => ['cert', 'certs', 'detail', id] as const,
  external: ['cert', 'external'] as const,
  externalDetail: (id: string) => ['cert', 'external', 'detail', id] as const,
};

// Local CAs

export const listCas = (query: QueryOf<typeof api.cert.caList>) => call(api.cert.caList, { query });
/** Every CA of the domain (a domain has a handful): for selects and the filter. */
export const allCas = async () => (await call(api.cert.caList, { query: { page: 1, page_size: 1000 } })).data;
export const caDetail = (id: string) => call(api.cert.caDetail, { query: { id } });
export const createCa = (body: BodyOf<typeof api.cert.caCreate>) => call(api.cert.caCreate, { body });
export const selfSignCa = (body: BodyOf<typeof api.cert.caSelfSign>) => call(api.cert.caSelfSign, { body });
export const signCa = (body: BodyOf<typeof api.cert.caSign>) => call(api.cert.caSign, { body });
export const installCa = (body: BodyOf<typeof api.cert.caInstall>) => call(api.cert.caInstall, { body });
export const updateCa = (body: BodyOf<typeof api.cert.caUpdate>) => call(api.cert.caUpdate, { body });
export const deleteCas = (ids: string[]) => call(api.cert.caDelete, { body: { ids } });
export const downloadCaFile = (id: string, kind: CaDownloadKind, options?: CallOptions) =>
  call(api.cert.caDownload, { query: { id, kind } }, options);

// Issued certificates

export const listCerts = (query: QueryOf<typeof api.cert.list>) => call(api.cert.list, { query });
export const certDetail = (id: string) => call(api.cert.detail, { query: { id } });
export const issueCert = (body: IssueBody) => call(api.cert.issue, { body });
export const revokeCert = (body: BodyOf<typeof api.cert.revoke>) => call(api.cert.revoke, { body });
export const resumeCert = (id: string) => call(api.cert.resume, { body: { id } });
export const deleteCerts = (ids: string[]) => call(api.cert.delete, { body: { ids } });
export const downloadCertFile = (id: string, kind: CertDownloadKind, options?: CallOptions) =>
  call(api.cert.download, { query: { id, kind } }, options);
/** The generated private key, encrypted under the caller's password (cert:export). */
export const downloadCertKey = (body: BodyOf<typeof api.cert.downloadKey>) =>
  call(api.cert.downloadKey, { body });

/**
 * A user's UKEY certificates from the token's request (binds the UKEY to the user). Silent:
 * the UKEY form shows the failure at its step.
 */
export const issueUkeyCert = (body: BodyOf<typeof api.cert.ukeyIssue>) =>
  call(api.cert.ukeyIssue, { body }, { silent: true });

// External CAs

export const listExternal = (query: QueryOf<typeof api.cert.externalList>) =>
  call(api.cert.externalList, { query });
export const externalDetail = (id: string) => call(api.cert.externalDetail, { query: { id } });
export const uploadExternal = (body: BodyOf<typeof api.cert.externalUpload>) =>
  call(api.cert.externalUpload, { body });
export const deleteExternal = (ids: string[]) => call(api.cert.externalDelete, { body: { ids } });

// Online issuing (public): errors are shown on the page, not as a toast.

export const signCsr = (body: BodyOf<typeof api.cert.sign>) =>
  call(api.cert.sign, { body }, { silent: true });
