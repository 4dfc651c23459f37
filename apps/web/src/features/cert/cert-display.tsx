import type { ReactNode } from 'react';
import { DownOutlined } from '@ant-design/icons';
import { Button, Dropdown, Tag, Typography } from 'antd';
import { CopyableText } from '../../components/copyable-text';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';

export const caStateColors = { pending: 'gold', active: 'green', expired: 'red' } as const;
export const certStatusColors = {
  normal: 'green',
  revoked: 'red',
  hold: 'orange',
  expired: 'default',
} as const;
export const externalStatusColors = { valid: 'green', expired: 'red', 'not-yet-valid': 'gold' } as const;

/** "start – end" of a validity (either may be missing while pending). */
export function Validity({
  from,
  to,
  stacked = false,
}: {
  from: string | null;
  to: string | null;
  /** One date under the other (a table's narrow column). */
  stacked?: boolean;
}) {
  if (!from && !to) return <Typography.Text type="secondary">-</Typography.Text>;
  if (stacked)
    return (
      <span style={{ whiteSpace: 'nowrap' }} data-testid="cert-validity">
        {formatDateTime(from)}
        <br />– {formatDateTime(to)}
      </span>
    );
  return (
    <span style={{ whiteSpace: 'nowrap' }}>
      {formatDateTime(from)} – {formatDateTime(to)}
    </span>
  );
}

/** A hexadecimal value (serial, fingerprint) in a small monospace font, copyable. */
export function Hex({ value, short = false }: { value: string | null; short?: boolean }) {
  if (!value) return <Typography.Text type="secondary">-</Typography.Text>;
  const shown = short && value.length > 16 ? `${value.slice(0, 16)}…` : value;
  return (
    <Typography.Text
      copyable={{ text: value }}
      style={{ fontFamily: 'monospace', fontSize: 12, wordBreak: 'break-all' }}
      title={value}
    >
      {shown}
    </Typography.Text>
  );
}

/** A PEM text, read-only, with a copy button. */
export function PemBlock({ label, value, testId }: { label: ReactNode; value: string; testId: string }) {
  return <CopyableText label={label} value={value} testId={testId} />;
}

/** A "Download" menu of file kinds. */
export function DownloadMenu<K extends string>({
  kinds,
  label,
  onChoose,
  testId,
  button = 'link',
}: {
  kinds: readonly K[];
  label: (kind: K) => string;
  onChoose: (kind: K) => void;
  testId: string;
  button?: 'link' | 'default';
}) {
  const t = useT();
  return (
    <Dropdown
      trigger={['click']}
      disabled={kinds.length === 0}
      menu={{
        items: kinds.map((kind) => ({
          key: kind,
          label: <span data-testid={`${testId}-${kind}`}>{label(kind)}</span>,
        })),
        onClick: ({ key }) => onChoose(key as K),
      }}
    >
      <Button type={button} size={button === 'link' ? 'small' : 'middle'} data-testid={testId}>
        {t('cert:common.download')} <DownOutlined />
      </Button>
    </Dropdown>
  );
}

export function DefaultMark() {
  const t = useT();
  return (
    <Tag color="blue" data-testid="ca-default">
      {t('cert:fields.default')}
    </Tag>
  );
}

type Translate = ReturnType<typeof useT>;

/** The validity and fingerprint fields of a certificate's (or CA's) details, in this order. */
export function validityItems(
  t: Translate,
  cert: { not_before: string | null; not_after: string | null; fingerprint: string | null },
) {
  return [
    { key: 'not_before', label: t('cert:fields.notBefore'), children: formatDateTime(cert.not_before) },
    { key: 'not_after', label: t('cert:fields.notAfter'), children: formatDateTime(cert.not_after) },
    { key: 'fingerprint', label: t('cert:fields.fingerprint'), children: <Hex value={cert.fingerprint} /> },
  ];
}

/** The "created" field closing a certificate's (or CA's) details. */
export function createdAtItem(t: Translate, row: { created_at: string }) {
  return { key: 'created_at', label: t('cert:fields.createdAt'), children: formatDateTime(row.created_at) };
}

/**
 * A certificate's (or CA's) PEMs under its details: the certificate, its chain and its
 * request, each shown when there is one (test ids `<testId>-pem`, `-chain`, `-csr`).
 */
export function CertPemBlocks({
  pems,
  testId,
}: {
  pems: { certificate_pem: string | null; chain_pem: readonly string[]; csr_pem: string | null };
  testId: string;
}) {
  const t = useT();
  return (
    <>
      {pems.certificate_pem && (
        <PemBlock
          label={t('cert:fields.certificate')}
          value={pems.certificate_pem}
          testId={`${testId}-pem`}
        />
      )}
      {pems.chain_pem.length > 0 && (
        <PemBlock
          label={t('cert:fields.chain')}
          value={pems.chain_pem.join('\n')}
          testId={`${testId}-chain`}
        />
      )}
      {pems.csr_pem && (
        <PemBlock label={t('cert:fields.csr')} value={pems.csr_pem} testId={`${testId}-csr`} />
      )}
    </>
  );
}
