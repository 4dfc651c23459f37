import { useQuery } from '@tanstack/react-query';
import { Flex, Tag } from 'antd';
import {
  certDetail,
  certKeys,
  type CertDownloadKind,
  type CertRow,
  type KeyDownloadKind,
} from '../../api/cert';
import { StatusTag } from '../../components/columns';
import { DetailDrawer } from '../../components/detail-drawer';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import {
  CertPemBlocks,
  certStatusColors,
  createdAtItem,
  DownloadMenu,
  Hex,
  validityItems,
} from './cert-display';

/** A certificate's status tag, with the "expiring soon" badge beside a valid one. */
export function CertStatus({ cert }: { cert: Pick<CertRow, 'status' | 'expiring'> }) {
  const t = useT();
  const labels = {
    normal: t('cert:statuses.normal'),
    revoked: t('cert:statuses.revoked'),
    hold: t('cert:statuses.hold'),
    expired: t('cert:statuses.expired'),
  };
  return (
    <Flex gap={4} wrap>
      <StatusTag value={cert.status} colors={certStatusColors} labels={labels} testId="cert-status" />
      {cert.expiring && (
        <Tag color="orange" data-testid="cert-expiring">
          {t('cert:expiring')}
        </Tag>
      )}
    </Flex>
  );
}

/** Every field of docs/modules.md#certificates for one certificate, its PEMs and its downloads. */
export function CertDetailDrawer({
  id,
  onClose,
  onDownload,
  kinds,
}: {
  id: string;
  onClose: () => void;
  onDownload: (cert: CertRow, kind: CertDownloadKind | KeyDownloadKind) => void;
  /** The files the certificate offers to this user. */
  kinds: (cert: CertRow) => readonly (CertDownloadKind | KeyDownloadKind)[];
}) {
  const t = useT();
  const detail = useQuery({ queryKey: certKeys.certDetail(id), queryFn: () => certDetail(id) });
  const list = (values: readonly string[]) => (values.length > 0 ? values.join(', ') : '-');
  const privateKey = (cert: CertRow) =>
    !cert.has_private_key
      ? t('cert:privateKey.none')
      : cert.exportable
        ? t('cert:privateKey.exportable')
        : t('cert:privateKey.held');

  return (
    <DetailDrawer
      record={detail.data}
      onClose={onClose}
      title={(cert) => t('cert:certs.detailTitle', { name: cert.name })}
      extra={(cert) => (
        <DownloadMenu
          kinds={kinds(cert)}
          label={(kind) => t(`cert:certs.downloads.${kind}`)}
          onChoose={(kind) => onDownload(cert, kind)}
          testId="cert-detail-download"
          button="default"
        />
      )}
      testId="cert-detail"
      items={(cert) => [
        { key: 'name', label: t('cert:fields.name'), children: cert.name },
        { key: 'cn', label: t('cert:fields.cn'), children: cert.cn },
        { key: 'dns', label: t('cert:fields.dnsNames'), children: list(cert.dns_names) },
        { key: 'ips', label: t('cert:fields.ipAddresses'), children: list(cert.ip_addresses) },
        { key: 'emails', label: t('cert:fields.emails'), children: list(cert.emails) },
        { key: 'subject', label: t('cert:fields.subject'), children: cert.subject },
        { key: 'issuer', label: t('cert:fields.issuer'), children: cert.issuer },
        {
          key: 'purpose',
          label: t('cert:fields.purpose'),
          children: t(`cert:purposes.${cert.purpose}`),
        },
        { key: 'usage', label: t('cert:fields.usage'), children: t(`cert:usages.${cert.usage}`) },
        { key: 'key_usage', label: t('cert:fields.keyUsage'), children: list(cert.key_usage) },
        { key: 'eku', label: t('cert:fields.extKeyUsage'), children: list(cert.ext_key_usage) },
        { key: 'parent', label: t('cert:fields.parent'), children: cert.ca_name ?? '-' },
        ...validityItems(t, cert),
        {
          key: 'algorithm',
          label: t('cert:fields.algorithmLength'),
          children: `${cert.algorithm} / ${cert.key_bits}`,
        },
        { key: 'serial', label: t('cert:fields.serial'), children: <Hex value={cert.serial} /> },
        { key: 'status', label: t('cert:fields.status'), children: <CertStatus cert={cert} /> },
        ...(cert.revoked_at
          ? [
              {
                key: 'revoked_at',
                label: t('cert:fields.revokedAt'),
                children: formatDateTime(cert.revoked_at),
              },
              {
                key: 'reason',
                label: t('cert:fields.revocationReason'),
                children: cert.revocation_reason ? t(`cert:reasons.${cert.revocation_reason}`) : '-',
              },
            ]
          : []),
        { key: 'source', label: t('cert:fields.source'), children: t(`cert:sources.${cert.source}`) },
        { key: 'key', label: t('cert:fields.privateKey'), children: privateKey(cert) },
        createdAtItem(t, cert),
      ]}
    >
      {(cert) => <CertPemBlocks pems={cert} testId="cert-detail" />}
    </DetailDrawer>
  );
}
