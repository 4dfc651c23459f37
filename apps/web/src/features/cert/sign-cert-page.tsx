import { useState } from 'react';
import { DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Descriptions, Flex, Form, Input, Typography } from 'antd';
import { Link } from 'react-router';
import { ApiError } from '../../api/api-error';
import { signCsr, type SignResult } from '../../api/cert';
import { formatDateTime } from '../../components/date-time';
import { Heading } from '../../components/heading';
import { PublicPage } from '../../components/public-page';
import { useSubmit } from '../../components/use-submit';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { base64ToBytes, hasPrivateKey, readCertFile, saveBlob, saveText } from './cert-files';
import { PemInput } from '../../components/pem-input';

interface SignValues {
  token: string;
  csr: string;
}

const CSR_BEGIN = /-----BEGIN (NEW )?CERTIFICATE REQUEST-----/;

/**
 * `/sign-cert` (public): a registration token and a PKCS#10 request give a client
 * certificate of the token domain's default CA. The page never asks for a private key and
 * refuses to send one.
 */
export default function SignCertPage() {
  const t = useT();
  const [form] = Form.useForm<SignValues>();
  const { run, buttonProps } = useSubmit();
  const [result, setResult] = useState<SignResult | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = (values: SignValues) =>
    run(async () => {
      setError(null);
      try {
        setResult(await signCsr({ token: values.token.trim(), csr: values.csr.trim() }));
      } catch (failure) {
        const status = failure instanceof ApiError ? failure.status : undefined;
        setError(
          status === 429
            ? t('cert:sign.rateLimited')
            : failure instanceof Error && failure.message
              ? failure.message
              : t('common:feedback.error'),
        );
        throw failure;
      }
    });

  const stem = result ? `certificate-${result.serial.slice(0, 16)}` : 'certificate';
  const required = (label: string) => ({
    required: true,
    whitespace: true,
    message: t('common:validation.required', { label }),
  });

  return (
    <PublicPage width={640}>
      <Heading level={4} style={{ marginTop: 0 }}>
        {t('cert:sign.title')}
      </Heading>
      {result ? (
        <Flex vertical gap={12} data-testid="sign-result">
          <Alert type="success" showIcon title={t('cert:sign.issued')} />
          <Descriptions
            size="small"
            bordered
            column={1}
            items={[
              {
                key: 'serial',
                label: t('cert:sign.serial'),
                children: (
                  <Typography.Text
                    copyable
                    style={{ fontFamily: 'monospace', wordBreak: 'break-all' }}
                    data-testid="sign-serial"
                  >
                    {result.serial}
                  </Typography.Text>
                ),
              },
              {
                key: 'not_after',
                label: t('cert:sign.notAfter'),
                children: <span data-testid="sign-not-after">{formatDateTime(result.not_after)}</span>,
              },
              {
                key: 'remaining',
                label: t('cert:sign.remaining'),
                children: (
                  <span data-testid="sign-remaining">
                    {result.remaining === null ? t('cert:sign.unlimited') : result.remaining}
                  </span>
                ),
              },
            ]}
          />
          <Flex gap={8} wrap>
            <Button
              type="primary"
              icon={<DownloadOutlined />}
              onClick={() => saveText(`${stem}.pem`, result.certificate_pem)}
              data-testid="sign-download-cert"
            >
              {t('cert:sign.downloadCert')}
            </Button>
            <Button
              icon={<DownloadOutlined />}
              onClick={() => saveText(`${stem}-chain.pem`, result.chain_pem.join('\n'))}
              data-testid="sign-download-chain"
            >
              {t('cert:sign.downloadChain')}
            </Button>
            <Button
              icon={<DownloadOutlined />}
              onClick={() =>
                saveBlob(
                  `${stem}.p7b`,
                  new Blob([base64ToBytes(result.p7b)], { type: 'application/x-pkcs7-certificates' }),
                )
              }
              data-testid="sign-download-p7b"
            >
              {t('cert:sign.downloadP7b')}
            </Button>
          </Flex>
          <Flex gap={8} wrap justify="space-between">
            <Button
              onClick={() => {
                setResult(null);
                form.resetFields(['csr']);
              }}
              data-testid="sign-again"
            >
              {t('cert:sign.again')}
            </Button>
            <Link to={paths.login}>{t('cert:sign.toLogin')}</Link>
          </Flex>
        </Flex>
      ) : (
        <>
          <Typography.Paragraph type="secondary">{t('cert:sign.intro')}</Typography.Paragraph>
          {error && (
            <Alert
              type="error"
              showIcon
              title={t('cert:sign.failed')}
              description={error}
              style={{ marginBottom: 16 }}
              data-testid="sign-error"
            />
          )}
          <Form<SignValues>
            form={form}
            layout="vertical"
            onFinish={(values) => void submit(values)}
            data-testid="sign-form"
          >
            <Form.Item name="token" label={t('cert:sign.token')} rules={[required(t('cert:sign.token'))]}>
              <Input.Password
                placeholder={t('cert:sign.tokenPlaceholder')}
                autoComplete="off"
                maxLength={256}
                data-testid="sign-token"
              />
            </Form.Item>
            <Form.Item
              name="csr"
              label={t('cert:sign.csr')}
              extra={
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {t('cert:sign.opensslHint')}
                </Typography.Text>
              }
              rules={[
                required(t('cert:sign.csr')),
                {
                  validator: (_rule, value: unknown) => {
                    const text = typeof value === 'string' ? value : '';
                    if (!text.trim()) return Promise.resolve();
                    if (hasPrivateKey(text)) return Promise.reject(new Error(t('cert:sign.privateKey')));
                    if (!CSR_BEGIN.test(text)) return Promise.reject(new Error(t('cert:sign.notCsr')));
                    return Promise.resolve();
                  },
                },
              ]}
            >
              <PemInput
                read={readCertFile}
                accept=".csr,.pem,.req"
                placeholder={t('cert:sign.csrPlaceholder')}
                testId="sign-csr"
              />
            </Form.Item>
            <Flex justify="space-between" align="center" gap={8} wrap>
              <Link to={paths.login}>{t('cert:sign.toLogin')}</Link>
              <Button type="primary" htmlType="submit" {...buttonProps} data-testid="sign-submit">
                {t('cert:sign.submit')}
              </Button>
            </Flex>
          </Form>
        </>
      )}
    </PublicPage>
  );
}
