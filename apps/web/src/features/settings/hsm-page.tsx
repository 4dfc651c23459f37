import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Descriptions, Flex, Form, Input, Typography } from 'antd';
import { api, HSM_DEFAULT_KEY_LABEL, type HsmCertificates, type HsmTarget } from '@ksp/contracts';
import { bindHsm, fetchHsmStatus, hsmKeys, saveHsmCertificates, testHsm, unbindHsm } from '../../api/hsm';
import { formatDateTime } from '../../components/date-time';
import { PemInput } from '../../components/pem-input';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';

type SettingsValues = {
  library?: string;
  slot_serial?: string;
  token_label?: string;
  pin?: string;
  key_label?: string;
};
const certFields = [
  'hsm_certificate',
  'client_certificate',
  'client_private_key',
  'server_certificate',
] as const;
const wrap = { wordBreak: 'break-all' } as const;
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Settings › HSM: what seals the root key, binding it to a PKCS#11 token, the "test" round trip, the certificates. */
export default function HsmPage() {
  const t = useT();
  const { message, modal } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.hsm.bind);
  const status = useQuery({ queryKey: hsmKeys.status, queryFn: fetchHsmStatus });
  const data = status.data;
  const [settings] = Form.useForm<SettingsValues>();
  const [certs] = Form.useForm<HsmCertificates>();
  const [outcome, setOutcome] = useState<{ type: 'success' | 'error'; text: string } | null>(null);
  const [certRefusal, setCertRefusal] = useState<string | null>(null);
  const submit = useSubmit();
  const certSubmit = useSubmit();
  // The stored settings fill the form (never the PIN), until the user types.
  useEffect(() => {
    if (!data?.configured || settings.isFieldsTouched()) return;
    settings.setFieldsValue({
      library: data.library ?? '',
      slot_serial: data.slot_serial ?? '',
      token_label: data.token_label ?? '',
      key_label: data.key_label ?? HSM_DEFAULT_KEY_LABEL,
    });
  }, [data, settings]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: hsmKeys.all });

  const target = (v: SettingsValues): HsmTarget => ({
    library: (v.library ?? '').trim(),
    pin: v.pin ?? '',
    ...(v.slot_serial?.trim() ? { slot_serial: v.slot_serial.trim() } : {}),
    ...(v.token_label?.trim() ? { token_label: v.token_label.trim() } : {}),
    key_label: v.key_label?.trim() || HSM_DEFAULT_KEY_LABEL,
  });

  const runTest = async () => {
    const values = settings.getFieldsValue();
    // The settings typed in, or (no PIN typed, an HSM stored) the stored ones.
    const useStored = !values.pin && data?.configured;
    if (!useStored) {
      const ok = await settings.validateFields().then(
        () => true,
        () => false,
      );
      if (!ok) return;
    }
    await submit.run(async () => {
      setOutcome(null);
      try {
        const r = await testHsm(useStored ? {} : target(values));
        const params = { label: r.token_label, serial: r.slot_serial, key: r.key_label };
        setOutcome({
          type: 'success',
          text: r.key_sensitive && !r.key_extractable ? t('hsm:testOk', params) : t('hsm:testOkWeak', params),
        });
      } catch (error) {
        setOutcome({ type: 'error', text: errorText(error) });
        throw error;
      }
    });
  };

  const runBind = async () => {
    const ok = await settings.validateFields().then(
      () => true,
      () => false,
    );
    if (!ok) return;
    const body = target(settings.getFieldsValue());
    modal.confirm({
      title: t('hsm:bindConfirm'),
      content: t('hsm:bindContent'),
      okButtonProps: { 'data-testid': 'hsm-bind-ok' },
      onOk: () =>
        submit.run(async () => {
          setOutcome(null);
          try {
            await bindHsm(body);
            void message.success(t('hsm:boundDone'));
            settings.setFieldValue('pin', '');
            await refresh();
          } catch (error) {
            setOutcome({ type: 'error', text: errorText(error) });
            throw error;
          }
        }),
    });
  };

  const runUnbind = () =>
    modal.confirm({
      title: t('hsm:unbindConfirm'),
      content: t('hsm:unbindContent'),
      okButtonProps: { danger: true, 'data-testid': 'hsm-unbind-ok' },
      onOk: () =>
        submit.run(async () => {
          await unbindHsm();
          void message.success(t('hsm:unboundDone'));
          await refresh();
        }),
    });

  const saveCerts = async () => {
    const values = certs.getFieldsValue();
    const body: HsmCertificates = {};
    for (const f of certFields) {
      const v = values[f];
      // An untouched private key field keeps the stored key.
      if (v !== undefined && !(f === 'client_private_key' && v === '')) body[f] = v;
    }
    await certSubmit.run(async () => {
      setCertRefusal(null);
      try {
        await saveHsmCertificates(body);
        void message.success(t('hsm:saved'));
        certs.setFieldValue('client_private_key', '');
        await refresh();
      } catch (error) {
        setCertRefusal(errorText(error));
        throw error;
      }
    });
  };

  const required = (field: string) => [
    { required: true, whitespace: true, message: t('hsm:required', { field }) },
  ];

  return (
    <Flex vertical gap={16}>
      <Card title={t('hsm:rootTitle')}>
        {data && (
          <Flex vertical gap={12}>
            <Alert
              type={data.bound ? 'success' : 'info'}
              showIcon
              data-testid="hsm-state"
              title={
                data.bound
                  ? t('hsm:bound', { label: data.token_label ?? '', serial: data.slot_serial ?? '' })
                  : t('hsm:sealFile', { path: data.seal_file ?? '' })
              }
            />
            <Descriptions size="small" column={{ xs: 1, md: 2 }} bordered>
              <Descriptions.Item label={t('hsm:fields.slot_serial')}>
                <span data-testid="hsm-serial" style={wrap}>
                  {data.slot_serial ?? '—'}
                </span>
              </Descriptions.Item>
              <Descriptions.Item label={t('hsm:fields.token_label')}>
                <span data-testid="hsm-label">{data.token_label ?? '—'}</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('hsm:fields.library')}>
                <span style={wrap}>{data.library ?? '—'}</span>
              </Descriptions.Item>
              <Descriptions.Item label={t('hsm:fields.key_label')}>{data.key_label ?? '—'}</Descriptions.Item>
              <Descriptions.Item label={t('hsm:fields.bound_at')}>
                {data.bound_at ? formatDateTime(data.bound_at) : t('hsm:notBound')}
              </Descriptions.Item>
            </Descriptions>
          </Flex>
        )}
      </Card>
      <Card
        title={t('hsm:settingsTitle')}
        extra={
          canWrite && data?.bound ? (
            <Button danger onClick={runUnbind} data-testid="hsm-unbind" {...submit.buttonProps}>
              {t('hsm:unbind')}
            </Button>
          ) : null
        }
      >
        {!canWrite && <Alert type="info" showIcon title={t('hsm:readOnly')} style={{ marginBottom: 16 }} />}
        <Form
          form={settings}
          layout="vertical"
          disabled={!canWrite}
          style={{ maxWidth: 640 }}
          initialValues={{ key_label: HSM_DEFAULT_KEY_LABEL }}
          onValuesChange={() => setOutcome(null)}
        >
          <Form.Item
            name="library"
            label={t('hsm:fields.library')}
            extra={t('hsm:hints.library')}
            rules={required(t('hsm:fields.library'))}
          >
            <Input spellCheck={false} data-testid="hsm-library" />
          </Form.Item>
          <Form.Item
            name="slot_serial"
            label={t('hsm:fields.slot_serial')}
            extra={t('hsm:hints.slot_serial')}
          >
            <Input spellCheck={false} data-testid="hsm-slot-serial" />
          </Form.Item>
          <Form.Item
            name="token_label"
            label={t('hsm:fields.token_label')}
            extra={t('hsm:hints.token_label')}
          >
            <Input spellCheck={false} data-testid="hsm-token-label" />
          </Form.Item>
          <Form.Item
            name="pin"
            label={t('hsm:fields.pin')}
            extra={t('hsm:hints.pin')}
            rules={required(t('hsm:fields.pin'))}
          >
            <Input.Password autoComplete="off" data-testid="hsm-pin" />
          </Form.Item>
          <Form.Item name="key_label" label={t('hsm:fields.key_label')} extra={t('hsm:hints.key_label')}>
            <Input spellCheck={false} data-testid="hsm-key-label" />
          </Form.Item>
          {outcome && (
            <Alert
              type={outcome.type}
              showIcon
              title={outcome.text}
              style={{ marginBottom: 16 }}
              data-testid="hsm-outcome"
            />
          )}
          {canWrite && (
            <Flex gap={8}>
              <Button onClick={() => void runTest()} data-testid="hsm-test" {...submit.buttonProps}>
                {t('hsm:test')}
              </Button>
              <Button
                type="primary"
                onClick={() => void runBind()}
                data-testid="hsm-bind"
                {...submit.buttonProps}
              >
                {data?.bound ? t('hsm:rebind') : t('hsm:bind')}
              </Button>
            </Flex>
          )}
        </Form>
      </Card>
      {data?.configured && (
        <Card title={t('hsm:certificatesTitle')}>
          <Form
            form={certs}
            layout="vertical"
            disabled={!canWrite}
            style={{ maxWidth: 800 }}
            key={data.updated_at ?? ''}
            initialValues={{
              hsm_certificate: data.hsm_certificate ?? '',
              client_certificate: data.client_certificate ?? '',
              client_private_key: '',
              server_certificate: data.server_certificate ?? '',
            }}
            onValuesChange={() => setCertRefusal(null)}
          >
            {certFields.map((f) => (
              <Form.Item
                key={f}
                name={f}
                label={t(`hsm:fields.${f}`)}
                extra={
                  f === 'client_private_key'
                    ? `${data.client_private_key_set ? `${t('hsm:keyStored')}. ` : ''}${t('hsm:hints.client_private_key')}`
                    : undefined
                }
              >
                <PemInput
                  accept=".pem,.crt,.cer,.key"
                  placeholder={
                    f === 'client_private_key' ? '-----BEGIN PRIVATE KEY-----' : '-----BEGIN CERTIFICATE-----'
                  }
                  testId={`hsm-${f.replaceAll('_', '-')}`}
                  masked={f === 'client_private_key'}
                  rows={4}
                />
              </Form.Item>
            ))}
            {certRefusal && (
              <Alert
                type="error"
                showIcon
                title={certRefusal}
                style={{ marginBottom: 16 }}
                data-testid="hsm-cert-refusal"
              />
            )}
            {canWrite && (
              <Button
                type="primary"
                onClick={() => void saveCerts()}
                data-testid="hsm-save-certs"
                {...certSubmit.buttonProps}
              >
                {t('hsm:save')}
              </Button>
            )}
          </Form>
        </Card>
      )}
      {data?.bound === false && data.configured === false && !canWrite ? (
        <Typography.Text type="secondary">{t('hsm:notBound')}</Typography.Text>
      ) : null}
    </Flex>
  );
}
