import { useState } from 'react';
import { DownloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Descriptions, Flex, Form, Input, Modal, Select } from 'antd';
import { exportKey, keyKeys, keyVersions, type KeyExport, type KeyRow } from '../../api/key';
import { CopyableText } from '../../components/copyable-text';
import { saveBlob } from '../../components/save-blob';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { isBase64, normalizeBase64 } from './key-model';

interface ExportValues {
  version: number;
  wrap_public_key?: string;
}

/** The export as a file: everything needed to unwrap it elsewhere. */
export function exportFileText(row: Pick<KeyRow, 'name'>, result: KeyExport): string {
  return `${JSON.stringify({ name: row.name, ...result }, null, 2)}\n`;
}

/**
 * Export a key: private and symmetric material leaves only wrapped by the public key the
 * user gives (RSA-OAEP or SM2, hybrid with AES key wrap when it is too long); a public key
 * exports as it is.
 */
export function ExportDialog({ row, onClose }: { row: KeyRow; onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<ExportValues>();
  const { run, buttonProps } = useSubmit();
  const [result, setResult] = useState<KeyExport | null>(null);
  const isPublic = row.object_type === 'public';
  const versions = useQuery({ queryKey: keyKeys.versions(row.id), queryFn: () => keyVersions(row.id) });
  const versionOptions = (versions.data ?? [])
    .filter((v) => !v.destroyed)
    .map((v) => ({
      value: v.version,
      label:
        v.version === row.version
          ? t('keys:export.currentVersion', { version: v.version })
          : t('keys:export.versionOption', { version: v.version }),
    }));

  const submit = (values: ExportValues) =>
    run(async () => {
      const exported = await exportKey({
        id: row.id,
        version: values.version,
        ...(isPublic ? {} : { wrap_public_key: normalizeBase64(values.wrap_public_key ?? '') }),
      });
      setResult(exported);
      void message.success(t('keys:feedback.exported'));
    });

  const footer = result ? (
    <Flex justify="end" gap={8} wrap>
      <Button
        icon={<DownloadOutlined />}
        onClick={() =>
          saveBlob(
            `${row.name}-v${result.version}.export.json`,
            new Blob([exportFileText(row, result)], { type: 'application/json' }),
          )
        }
        data-testid="export-download"
      >
        {t('keys:export.download')}
      </Button>
      <Button type="primary" onClick={onClose} data-testid="export-close">
        {t('keys:export.close')}
      </Button>
    </Flex>
  ) : (
    <Flex justify="end" gap={8} wrap>
      <Button onClick={onClose}>{t('common:actions.cancel')}</Button>
      <Button type="primary" {...buttonProps} onClick={() => form.submit()} data-testid="export-submit">
        {t('keys:export.submit')}
      </Button>
    </Flex>
  );

  return (
    <Modal
      open
      title={t('keys:export.title', { name: row.name })}
      onCancel={onClose}
      footer={footer}
      width={640}
    >
      {result ? (
        <div data-testid="export-result">
          <Descriptions
            size="small"
            bordered
            column={1}
            items={[
              { key: 'algorithm', label: t('keys:export.algorithm'), children: result.algorithm },
              { key: 'version', label: t('keys:export.version'), children: result.version },
              {
                key: 'format',
                label: t('keys:export.format'),
                children: (
                  <span data-testid="export-format">{t(`keys:export.formats.${result.format}`)}</span>
                ),
              },
              {
                key: 'wrapping',
                label: t('keys:export.wrapping'),
                children: (
                  <span data-testid="export-wrapping" data-wrapping={result.wrapping}>
                    {t(`keys:export.wrappings.${result.wrapping}`)}
                  </span>
                ),
              },
            ]}
          />
          {result.wrapped_kek && (
            <Alert type="info" showIcon title={t('keys:export.hybridNote')} style={{ marginTop: 12 }} />
          )}
          <CopyableText
            label={result.wrapping === 'none' ? t('keys:export.publicMaterial') : t('keys:export.material')}
            value={result.material}
            testId="export-material"
          />
          {result.wrapped_kek && (
            <CopyableText
              label={t('keys:export.wrappedKek')}
              value={result.wrapped_kek}
              testId="export-wrapped-kek"
            />
          )}
        </div>
      ) : (
        <Form<ExportValues>
          form={form}
          layout="vertical"
          initialValues={{ version: row.version, wrap_public_key: '' }}
          onFinish={(values) => void submit(values)}
          data-testid="export-form"
        >
          <Form.Item name="version" label={t('keys:export.version')}>
            <Select options={versionOptions} loading={versions.isFetching} data-testid="export-version" />
          </Form.Item>
          {isPublic ? (
            <Alert type="info" showIcon title={t('keys:export.publicNote')} />
          ) : (
            <Form.Item
              name="wrap_public_key"
              label={t('keys:export.wrapKey')}
              extra={t('keys:export.wrapKeyHint')}
              rules={[
                { required: true, whitespace: true, message: t('keys:validation.wrapKeyRequired') },
                {
                  validator: (_rule, value: string | undefined) =>
                    !value?.trim() || isBase64(value)
                      ? Promise.resolve()
                      : Promise.reject(new Error(t('keys:validation.base64'))),
                },
              ]}
            >
              <Input.TextArea
                autoSize={{ minRows: 4, maxRows: 10 }}
                spellCheck={false}
                style={{ fontFamily: 'monospace' }}
                data-testid="export-wrap-key"
              />
            </Form.Item>
          )}
        </Form>
      )}
    </Modal>
  );
}
