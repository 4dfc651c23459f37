import { DownloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Space, Typography } from 'antd';
import type { DescriptionsProps } from 'antd';
import { fetchDbKeyEndpoint, tdeDatabaseKeys } from '../../api/tde-database';
import { CopyButton } from '../../components/copy-button';
import { saveBlob } from '../../components/save-blob';
import { useT } from '../../i18n/i18n';

/** The server certificate, saved as the PEM file the database's plugin takes as its CA file. */
function saveCertificate(pem: string): void {
  saveBlob('ksp-server.pem', new Blob([pem], { type: 'application/x-pem-file' }));
}

/**
 * Where databases read their keys (`api.tdeDatabase.endpoint`): the plugin's URL is the address
 * this browser reaches KSP at and the endpoint's path; without TLS a warning, with it the
 * certificate to download as the plugin's CA file.
 */
export function DbEndpointCard() {
  const t = useT();
  const endpoint = useQuery({ queryKey: tdeDatabaseKeys.endpoint, queryFn: fetchDbKeyEndpoint });
  const data = endpoint.data;
  const url = data ? `${window.location.origin}${data.path}` : '';
  const pem = data?.server_certificate_pem ?? '';

  const items: DescriptionsProps['items'] = data
    ? [
        {
          key: 'url',
          label: t('tdeDatabase:endpoint.url'),
          children: (
            <Typography.Text copyable={{ text: url }} style={{ fontFamily: 'monospace' }}>
              <span data-testid="db-endpoint-url">{url}</span>
            </Typography.Text>
          ),
        },
        {
          key: 'mount',
          label: t('tdeDatabase:endpoint.mount'),
          children: <span data-testid="db-endpoint-mount">{data.mount}</span>,
        },
        {
          key: 'certificate',
          label: t('tdeDatabase:endpoint.certificate'),
          children: pem ? (
            <Space wrap>
              <CopyButton text={pem} testId="db-endpoint-cert-copy" />
              <Button
                icon={<DownloadOutlined />}
                onClick={() => saveCertificate(pem)}
                data-testid="db-endpoint-cert-download"
              >
                {t('tdeDatabase:endpoint.download')}
              </Button>
            </Space>
          ) : (
            <Typography.Text type="secondary">{t('tdeDatabase:endpoint.noCertificate')}</Typography.Text>
          ),
        },
      ]
    : [];

  return (
    <Card
      size="small"
      title={t('tdeDatabase:endpoint.title')}
      loading={endpoint.isLoading}
      data-testid="db-endpoint"
    >
      {data && !data.tls && (
        <Alert
          type="warning"
          showIcon
          title={t('tdeDatabase:endpoint.noTls')}
          style={{ marginBottom: 12 }}
          data-testid="db-endpoint-no-tls"
        />
      )}
      <Descriptions size="small" column={{ xs: 1, sm: 1, lg: 3 }} items={items} />
      <Typography.Paragraph type="secondary" style={{ fontSize: 12, margin: 0 }}>
        {t('tdeDatabase:endpoint.hint')}
      </Typography.Paragraph>
    </Card>
  );
}
