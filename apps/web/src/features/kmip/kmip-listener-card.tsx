import { DownloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Space, Tag, Typography } from 'antd';
import type { DescriptionsProps } from 'antd';
import { fetchKmipStatus, kmipKeys } from '../../api/kmip';
import { CopyButton } from '../../components/copy-button';
import { formatThousands } from '../../components/number-format';
import { useT } from '../../i18n/i18n';
import { savePem } from './kmip-files';

const KIB = 1024;
const MIB = 1024 * 1024;

/** The KMIP listener of this node (`api.kmip.status`): whether it listens, where, what it speaks, its limits. */
export function KmipListenerCard() {
  const t = useT();
  const status = useQuery({ queryKey: kmipKeys.status, queryFn: fetchKmipStatus });
  const data = status.data;

  const size = (bytes: number) =>
    bytes % MIB === 0
      ? t('kmip:listener.mib', { value: formatThousands(bytes / MIB) })
      : bytes % KIB === 0
        ? t('kmip:listener.kib', { value: formatThousands(bytes / KIB) })
        : t('kmip:listener.bytes', { value: formatThousands(bytes) });

  const pem = data?.server_certificate_pem ?? '';
  const items: DescriptionsProps['items'] = data
    ? [
        {
          key: 'state',
          label: t('kmip:listener.state'),
          children: (
            <Tag color={data.listening ? 'green' : 'default'} data-testid="kmip-listener-state">
              {data.listening ? t('kmip:listener.listening') : t('kmip:listener.notListening')}
            </Tag>
          ),
        },
        {
          key: 'port',
          label: t('kmip:listener.port'),
          children: <span data-testid="kmip-listener-port">{data.port ?? '-'}</span>,
        },
        {
          key: 'versions',
          label: t('kmip:listener.versions'),
          children: (
            <Space size={[4, 4]} wrap data-testid="kmip-listener-versions">
              {data.versions.map((version) => (
                <Tag key={version}>{version}</Tag>
              ))}
            </Space>
          ),
        },
        {
          key: 'maxMessage',
          label: t('kmip:listener.maxMessage'),
          children: size(data.limits.max_message_bytes),
        },
        {
          key: 'idle',
          label: t('kmip:listener.idle'),
          children: t('kmip:listener.seconds', { count: data.limits.idle_seconds }),
        },
        {
          key: 'perClient',
          label: t('kmip:listener.perClient'),
          children: formatThousands(data.limits.connections_per_client),
        },
        {
          key: 'total',
          label: t('kmip:listener.total'),
          children: formatThousands(data.limits.connections_total),
        },
        {
          key: 'certificate',
          label: t('kmip:listener.certificate'),
          children: pem ? (
            <Space wrap>
              <CopyButton text={pem} testId="kmip-listener-cert-copy" />
              <Button
                icon={<DownloadOutlined />}
                onClick={() => savePem('kmip-server.pem', pem)}
                data-testid="kmip-listener-cert-download"
              >
                {t('kmip:download')}
              </Button>
            </Space>
          ) : (
            <Typography.Text type="secondary">{t('kmip:listener.noCertificate')}</Typography.Text>
          ),
        },
      ]
    : [];

  return (
    <Card
      size="small"
      title={t('kmip:listener.title')}
      loading={status.isLoading}
      data-testid="kmip-listener"
    >
      {data && !data.listening && (
        <Alert type="info" showIcon title={t('kmip:listener.off')} style={{ marginBottom: 12 }} />
      )}
      <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3, xxl: 4 }} items={items} />
      {pem && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('kmip:listener.certificateHint')}
        </Typography.Text>
      )}
    </Card>
  );
}
