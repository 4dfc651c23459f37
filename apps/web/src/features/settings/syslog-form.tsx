import { useRef, useState } from 'react';
import { Alert, Checkbox, Col, Divider, Form, Input, Radio, Row, Select } from 'antd';
import type { Rule } from 'antd/es/form';
import {
  api,
  SYSLOG_DEFAULT_PORTS,
  syslogFormats,
  syslogProtocols,
  syslogStreams,
  type SyslogProtocol,
  type SyslogServer,
} from '@ksp/contracts';
import { ModalForm } from '../../components/form-modal';
import { PemInput } from '../../components/pem-input';
import { limitsAt } from '../../components/schema-limits';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { SwitchField } from '../../components/switch-field';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import {
  clientPairProblem,
  fieldOfMessage,
  formValuesOf,
  portForProtocol,
  storedPortTyped,
  type SyslogFormValues,
} from './syslog-values';

const schema = api.syslog.create.body;
const NAME = limitsAt(schema!, ['name']);
const HOST = limitsAt(schema!, ['host']);
const PORT = limitsAt(schema!, ['port']);
const CERT_PEM = /-----BEGIN [A-Z0-9 ]*CERTIFICATE-----/;
const KEY_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface SyslogFormModalProps {
  open: boolean;
  /** The receiver being edited; none adds one. */
  stored?: SyslogServer;
  onSubmit: (values: SyslogFormValues) => Promise<unknown>;
  onClose: () => void;
}

/**
 * Adding or editing a syslog receiver. Changing the protocol sets its default port unless a
 * port was typed; the TLS section shows for TLS only; the client key is never prefilled, and
 * a server refusal shows in the form (beside the field it names).
 */
export function SyslogFormModal({ open, stored, onSubmit, onClose }: SyslogFormModalProps) {
  const t = useT();
  const [form] = Form.useForm<SyslogFormValues>();
  const portTyped = useRef(storedPortTyped(stored));
  const [serverError, setServerError] = useState<string | null>(null);
  const protocol: SyslogProtocol = Form.useWatch('protocol', form) ?? stored?.protocol ?? 'udp';
  const removeClient = Form.useWatch('remove_client', form) === true;
  const hasStoredClient = stored !== undefined && (stored.client_cert !== null || stored.has_client_key);
  /** A PEM certificate field (the CA's, the client's). */
  const certificateInput = (testId: string) => (
    <PemInput rows={3} accept=".pem,.crt,.cer" placeholder={t('syslog:placeholders.pem')} testId={testId} />
  );

  const label = {
    name: t('syslog:fields.name'),
    host: t('syslog:fields.host'),
    port: t('syslog:fields.port'),
  };
  const rulesOf = (name: 'name' | 'host', text: string) => rulesFromSchema(fieldSchema(schema, name), text);

  const pairRule =
    (problem: 'keyMissing' | 'certMissing'): Rule =>
    ({ getFieldsValue }) => ({
      validator: () => {
        const values = getFieldsValue(true) as SyslogFormValues;
        return clientPairProblem(values, stored) === problem
          ? Promise.reject(new Error(t(`syslog:validation.${problem}`)))
          : Promise.resolve();
      },
    });
  const pemRule = (pattern: RegExp, message: string): Rule => ({
    validator: (_rule, value: unknown) =>
      typeof value !== 'string' || value.trim() === '' || pattern.test(value)
        ? Promise.resolve()
        : Promise.reject(new Error(message)),
  });

  const close = () => {
    setServerError(null);
    onClose();
  };

  const submit = async (values: SyslogFormValues) => {
    setServerError(null);
    try {
      // Fields not shown (TLS for UDP, the client pair being removed) count as empty.
      await onSubmit({ ...formValuesOf(), ...values });
    } catch (error) {
      // The form keeps what was typed; the server's reason shows beside the field it names.
      const message = errorText(error);
      setServerError(message);
      const field = fieldOfMessage(message);
      if (field) form.setFields([{ name: field, errors: [message] }]);
      throw error;
    }
  };

  return (
    <ModalForm<SyslogFormValues>
      open={open}
      title={stored ? t('syslog:editTitle', { name: stored.name }) : t('syslog:createTitle')}
      form={form}
      initialValues={formValuesOf(stored)}
      width={640}
      onSubmit={submit}
      onClose={close}
      okTestId="syslog-save"
      formTestId="syslog-form"
      onValuesChange={(changed) => {
        setServerError(null);
        if ('port' in changed) portTyped.current = changed.port !== null && changed.port !== undefined;
        if (changed.protocol) {
          const port = form.getFieldValue('port') as number | null;
          form.setFieldValue('port', portForProtocol(changed.protocol, port, portTyped.current));
        }
      }}
    >
      <Form.Item
        name="name"
        label={label.name}
        extra={t('syslog:hints.name')}
        rules={rulesOf('name', label.name)}
      >
        <Input maxLength={NAME.max} autoComplete="off" data-testid="syslog-name" />
      </Form.Item>
      <Form.Item name="protocol" label={t('syslog:fields.protocol')}>
        <Radio.Group
          optionType="button"
          buttonStyle="solid"
          data-testid="syslog-protocol"
          options={syslogProtocols.map((value) => ({
            value,
            label: t(`syslog:protocols.${value}`),
          }))}
        />
      </Form.Item>
      <Row gutter={16}>
        <Col xs={24} sm={16}>
          <Form.Item
            name="host"
            label={label.host}
            extra={t('syslog:hints.host')}
            rules={rulesOf('host', label.host)}
          >
            <Input
              maxLength={HOST.max}
              autoComplete="off"
              spellCheck={false}
              placeholder={t('syslog:placeholders.host')}
              data-testid="syslog-host"
            />
          </Form.Item>
        </Col>
        <Col xs={24} sm={8}>
          <WholeNumberField
            name="port"
            label={label.port}
            extra={t('syslog:hints.port', {
              port: SYSLOG_DEFAULT_PORTS[protocol],
              protocol: t(`syslog:protocols.${protocol}`),
            })}
            range={PORT}
            message={t('syslog:validation.port')}
            testId="syslog-port"
          />
        </Col>
      </Row>
      <Form.Item name="format" label={t('syslog:fields.format')}>
        <Select
          data-testid="syslog-format"
          options={syslogFormats.map((value) => ({ value, label: t(`syslog:formats.${value}`) }))}
        />
      </Form.Item>
      <Form.Item
        name="streams"
        label={t('syslog:fields.streams')}
        extra={t('syslog:hints.streams')}
        rules={[{ type: 'array', required: true, min: 1, message: t('syslog:validation.streams') }]}
      >
        <Checkbox.Group
          data-testid="syslog-streams"
          options={syslogStreams.map((value) => ({ value, label: t(`syslog:streams.${value}`) }))}
        />
      </Form.Item>
      <SwitchField name="enabled" label={t('syslog:fields.enabled')} testId="syslog-enabled" />
      {protocol === 'tls' && (
        <div data-testid="syslog-tls-section">
          <Divider titlePlacement="start" plain>
            {t('syslog:hints.tlsSection')}
          </Divider>
          <Form.Item
            name="ca_cert"
            label={t('syslog:fields.caCert')}
            extra={t('syslog:hints.caCert')}
            rules={[pemRule(CERT_PEM, t('syslog:validation.pemCert'))]}
          >
            {certificateInput('syslog-ca-cert')}
          </Form.Item>
          {hasStoredClient && (
            <Form.Item name="remove_client" valuePropName="checked">
              <Checkbox data-testid="syslog-remove-client">{t('syslog:hints.removeClient')}</Checkbox>
            </Form.Item>
          )}
          {!removeClient && (
            <>
              <Form.Item
                name="client_cert"
                label={t('syslog:fields.clientCert')}
                extra={t('syslog:hints.clientCert')}
                dependencies={['client_key']}
                rules={[pemRule(CERT_PEM, t('syslog:validation.pemCert')), pairRule('certMissing')]}
              >
                {certificateInput('syslog-client-cert')}
              </Form.Item>
              <Form.Item
                name="client_key"
                label={t('syslog:fields.clientKey')}
                extra={
                  stored?.has_client_key ? (
                    <span data-testid="syslog-key-stored">{t('syslog:hints.keyStored')}</span>
                  ) : (
                    t('syslog:hints.clientKey')
                  )
                }
                dependencies={['client_cert']}
                rules={[pemRule(KEY_PEM, t('syslog:validation.pemKey')), pairRule('keyMissing')]}
              >
                <PemInput
                  rows={3}
                  masked
                  accept=".pem,.key"
                  placeholder={t('syslog:placeholders.key')}
                  testId="syslog-client-key"
                />
              </Form.Item>
            </>
          )}
        </div>
      )}
      {serverError !== null && (
        <Alert
          type="error"
          showIcon
          data-testid="syslog-form-error"
          title={t('syslog:saveRefused')}
          description={<span style={{ wordBreak: 'break-word' }}>{serverError}</span>}
        />
      )}
    </ModalForm>
  );
}
