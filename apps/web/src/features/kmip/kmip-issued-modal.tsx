import type { ReactNode } from 'react';
import { DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Input, Typography } from 'antd';
import { CopyButton } from '../../components/copy-button';
import { OnceModal } from '../../components/once-modal';
import { useT } from '../../i18n/i18n';
import { fileStem, joinPem, savePem, savePkcs12 } from './kmip-files';

/** What a create or a renewal answered: the client's certificate and the issuing CA chain. */
export interface IssuedCertificate {
  title: string;
  name: string;
  certificate_pem: string;
  chain_pem: string;
  /** Base64 of the PKCS#12 file holding a key KSP made (offered once), or absent. */
  pkcs12?: string | null;
}

/** One PEM text, read-only, with its copy and download buttons. */
function PemBlock({
  label,
  value,
  filename,
  testId,
}: {
  label: ReactNode;
  value: string;
  filename: string;
  testId: string;
}) {
  const t = useT();
  return (
    <Flex vertical gap={4}>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Typography.Text strong>{label}</Typography.Text>
        <Flex gap={8} wrap>
          <CopyButton text={value} testId={`${testId}-copy`} />
          <Button
            icon={<DownloadOutlined />}
            onClick={() => savePem(filename, value)}
            data-testid={`${testId}-download`}
          >
            {t('kmip:download')}
          </Button>
        </Flex>
      </Flex>
      <Input.TextArea
        readOnly
        value={value}
        autoSize={{ minRows: 3, maxRows: 8 }}
        spellCheck={false}
        style={{ fontFamily: 'monospace', fontSize: 12, wordBreak: 'break-all' }}
        data-testid={testId}
      />
    </Flex>
  );
}

/**
 * The certificate KSP issued to a KMIP client and its CA chain, to copy or download. The client's
 * private key is not here: it never left the client (docs/kmip.md#connect-pykmip).
 */
export function KmipIssuedModal({
  value,
  onClose,
}: {
  value: IssuedCertificate | null;
  onClose: () => void;
}) {
  const t = useT();
  const stem = value ? fileStem(value.name) : '';
  return (
    <OnceModal
      open={value !== null}
      title={value?.title}
      onClose={onClose}
      width={720}
      footer={
        <Flex justify="end" gap={8} wrap>
          {value && (
            <Button
              icon={<DownloadOutlined />}
              onClick={() =>
                savePem(`${stem}-fullchain.pem`, joinPem(value.certificate_pem, value.chain_pem))
              }
              data-testid="kmip-issued-both-download"
            >
              {t('kmip:issued.downloadBoth')}
            </Button>
          )}
          <Button type="primary" onClick={onClose} data-testid="kmip-issued-done">
            {t('kmip:issued.done')}
          </Button>
        </Flex>
      }
    >
      {value && (
        <Flex vertical gap={12} data-testid="kmip-issued">
          {value.pkcs12 ? (
            <Alert
              type="warning"
              showIcon
              title={t('kmip:issued.pkcs12Note')}
              action={
                <Button
                  icon={<DownloadOutlined />}
                  onClick={() => savePkcs12(`${stem}.p12`, value.pkcs12 ?? '')}
                  data-testid="kmip-issued-pkcs12-download"
                >
                  {t('kmip:issued.pkcs12')}
                </Button>
              }
            />
          ) : (
            <Alert type="info" showIcon title={t('kmip:issued.note')} />
          )}
          <PemBlock
            label={t('kmip:issued.certificate')}
            value={value.certificate_pem}
            filename={`${stem}.pem`}
            testId="kmip-issued-certificate"
          />
          <PemBlock
            label={t('kmip:issued.chain')}
            value={value.chain_pem}
            filename={`${stem}-chain.pem`}
            testId="kmip-issued-chain"
          />
        </Flex>
      )}
    </OnceModal>
  );
}
