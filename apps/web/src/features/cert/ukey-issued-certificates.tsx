import { Alert, Descriptions } from 'antd';
import type { UkeyIssueResult } from '../../api/cert';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { Hex } from './cert-display';
import type { Issued } from './use-ukey-issue';

/** The certificates issued, and that the UKEY is bound. */
export function IssuedCertificates({ issued }: { issued: Issued }) {
  const t = useT();
  const { signing, encryption } = issued.result;
  const certs: { kind: 'signing' | 'encryption'; cert: UkeyIssueResult['signing'] }[] = [
    { kind: 'signing', cert: signing },
    ...(encryption ? [{ kind: 'encryption' as const, cert: encryption }] : []),
  ];
  return (
    <div data-testid="ukey-issued">
      <Alert
        type="success"
        showIcon
        title={t('cert:ukey.done')}
        description={t('cert:ukey.bound', { user: issued.username })}
        style={{ marginBottom: 16 }}
      />
      {certs.map(({ kind, cert }) => (
        <Descriptions
          key={kind}
          title={t(`cert:ukey.${kind}`)}
          size="small"
          column={1}
          bordered
          style={{ marginBottom: 12 }}
          data-testid={`ukey-issued-${kind}`}
          items={[
            { key: 'serial', label: t('cert:fields.serial'), children: <Hex value={cert.serial} /> },
            { key: 'subject', label: t('cert:fields.subject'), children: cert.subject },
            { key: 'not_after', label: t('cert:ukey.notAfter'), children: formatDateTime(cert.not_after) },
          ]}
        />
      ))}
    </div>
  );
}
