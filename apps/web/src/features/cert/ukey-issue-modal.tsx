import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Col,
  Descriptions,
  Form,
  Input,
  InputNumber,
  Modal,
  Radio,
  Row,
  Select,
  Steps,
} from 'antd';
import type { Rule } from 'antd/es/form';
import { api, UKEY_PIN_MIN, ukeyAlgorithms, ukeySpecs } from '@ksp/contracts';
import { listUsers } from '../../api/access';
import { ApiError } from '../../api/api-error';
import { issueUkeyCert, type UkeyIssueResult } from '../../api/cert';
import { configKeys, fetchPublicConfig } from '../../api/config';
import {
  BridgeError,
  bridgeAddress,
  bridgeInstall,
  bridgeKeygen,
  bridgeStatus,
  type BridgeKeygen,
  type UkeyAlgorithm,
} from '../../api/ukey';
import { formatDateTime } from '../../components/date-time';
import { PagedSelect } from '../../components/paged-select';
import { PasswordInput } from '../../components/password-input';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useT } from '../../i18n/i18n';
import { Hex } from './cert-display';

type Spec = (typeof ukeySpecs)[number];

export interface UkeyValues {
  user?: { value: string; label: string };
  ukey_type: string;
  algorithm: UkeyAlgorithm;
  spec: Spec;
  serial?: string;
  pin: string;
  confirm: string;
  validity_days: number;
}

const schema = api.cert.ukeyIssue.body;
const steps = ['keygen', 'issue', 'install'] as const;
type Step = (typeof steps)[number];

const initialValues: Partial<UkeyValues> = {
  ukey_type: 'PKCS#11',
  algorithm: 'RSA-2048',
  spec: 'single',
  validity_days: 365,
};

/** What the UKEY made: reused while the user, token and algorithm stay the same. */
interface Generated {
  for: string;
  keygen: BridgeKeygen;
}

/** The server's answer (the UKEY is bound from then on), kept to write it again. */
interface Issued {
  result: UkeyIssueResult;
  serial: string;
  keyId: string;
  username: string;
}

/**
 * Issue a user's UKEY certificates (docs/modules.md#ukey-certificates) in three steps: the UKEY
 * makes its signing key pair and request through the local bridge, the server issues the
 * certificate(s) and binds the UKEY to the user, the bridge writes them to the UKEY. The PIN
 * goes to the bridge only; the form is unmounted with the modal, so nothing keeps it.
 */
export function UkeyIssueModal({
  onClose,
  onIssued,
}: {
  onClose: () => void;
  onIssued: () => Promise<unknown>;
}) {
  const t = useT();
  const [form] = Form.useForm<UkeyValues>();
  const algorithm = Form.useWatch('algorithm', form) ?? 'RSA-2048';
  const [running, setRunning] = useState(false);
  const [current, setCurrent] = useState<number | null>(null);
  const [failure, setFailure] = useState<{ step: Step; text: string } | null>(null);
  const [generated, setGenerated] = useState<Generated | null>(null);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [done, setDone] = useState(false);

  // The bridge address: the public configuration entry UKEY_BRIDGE, as the UKEY login reads it.
  const config = useQuery({
    queryKey: [...configKeys.all, 'public'],
    queryFn: fetchPublicConfig,
    staleTime: 5 * 60_000,
    retry: false,
  });
  const bridge = bridgeAddress(
    Object.fromEntries((config.data ?? []).map((entry) => [entry.key, entry.value])),
  );
  const tokens = useQuery({
    queryKey: ['ukey-bridge', 'status', bridge],
    queryFn: () => bridgeStatus(bridge),
    enabled: !config.isPending,
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });
  const tokenList = tokens.data ?? [];

  // One UKEY plugged in: it is the one.
  useEffect(() => {
    const only = tokens.data?.length === 1 ? tokens.data[0] : undefined;
    if (only && !form.getFieldValue('serial')) form.setFieldValue('serial', only.serial);
  }, [tokens.data, form]);

  const required = (label: string): Rule => ({
    required: true,
    message: t('common:validation.required', { label }),
  });
  const schemaRules = (name: keyof UkeyValues, label: string) =>
    rulesFromSchema(fieldSchema(schema, name), label);

  const bridgeText = (error: unknown) =>
    error instanceof BridgeError
      ? error.unreachable
        ? t('cert:ukey.bridgeUnreachable', { url: bridge })
        : error.message
      : error instanceof ApiError
        ? error.message
        : '';

  const fail = (step: Step, error: unknown) => {
    const detail = bridgeText(error) || t('cert:ukey.unknownError');
    setFailure({ step, text: t(`cert:ukey.failed.${step}`, { error: detail }) });
  };

  const install = async (target: Issued, pin: string) => {
    setCurrent(2);
    try {
      const { signing, encryption, enveloped_key: envelopedKey } = target.result;
      await bridgeInstall(bridge, {
        pin,
        serial: target.serial,
        key_id: target.keyId,
        certificate: signing.certificate_pem,
        ...(encryption && envelopedKey
          ? { encryption_certificate: encryption.certificate_pem, enveloped_key: envelopedKey }
          : {}),
      });
    } catch (error) {
      fail('install', error);
      return;
    }
    setCurrent(3);
    setDone(true);
    await onIssued();
  };

  const submit = async (values: UkeyValues) => {
    setRunning(true);
    setFailure(null);
    try {
      if (issued) {
        await install(issued, values.pin);
        return;
      }
      const user = values.user;
      const serial = values.serial;
      if (!user || !serial) return;
      const username = user.label;

      setCurrent(0);
      const key = [user.value, serial, values.algorithm].join('\n');
      let keygen = generated?.for === key ? generated.keygen : null;
      if (!keygen) {
        try {
          keygen = await bridgeKeygen(bridge, {
            pin: values.pin,
            serial,
            algorithm: values.algorithm,
            common_name: username,
          });
        } catch (error) {
          fail('keygen', error);
          return;
        }
        setGenerated({ for: key, keygen });
      }

      setCurrent(1);
      let result: UkeyIssueResult;
      try {
        // The PIN stays here: the server gets the token's request, never the PIN.
        result = await issueUkeyCert({
          user_id: user.value,
          ukey_type: values.ukey_type,
          algorithm: values.algorithm,
          spec: values.algorithm === 'SM2' ? values.spec : 'single',
          serial: keygen.serial || serial,
          csr: keygen.csr,
          validity_days: values.validity_days,
        });
      } catch (error) {
        fail('issue', error);
        return;
      }
      const target: Issued = { result, serial: keygen.serial || serial, keyId: keygen.key_id, username };
      setIssued(target);
      await install(target, values.pin);
    } finally {
      setRunning(false);
    }
  };

  const stepStatus = (index: number): 'wait' | 'process' | 'finish' | 'error' => {
    if (current === null || index > current) return 'wait';
    if (index < current) return 'finish';
    if (failure?.step === steps[index]) return 'error';
    return running ? 'process' : 'finish';
  };

  const locked = issued !== null;
  const footer = done
    ? [
        <Button key="close" type="primary" onClick={onClose} data-testid="ukey-issue-close">
          {t('cert:common.close')}
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose} data-testid="ukey-issue-cancel">
          {t('common:actions.cancel')}
        </Button>,
        <Button
          key="ok"
          type="primary"
          loading={running}
          onClick={() => form.submit()}
          data-testid={locked ? 'ukey-install-retry' : 'ukey-issue-ok'}
        >
          {locked ? t('cert:ukey.installAgain') : t('cert:ukey.submit')}
        </Button>,
      ];

  return (
    <Modal
      open
      title={t('cert:ukey.title')}
      width={760}
      onCancel={onClose}
      mask={{ closable: !running }}
      footer={footer}
      destroyOnHidden
    >
      <div data-testid="ukey-issue-form">
        {current !== null && (
          <Steps
            size="small"
            current={Math.min(current, 2)}
            style={{ marginBottom: 16 }}
            items={steps.map((step, index) => ({
              title: (
                <span data-testid={`ukey-step-${step}`} data-status={stepStatus(index)}>
                  {t(`cert:ukey.steps.${step}`)}
                </span>
              ),
              status: stepStatus(index),
            }))}
          />
        )}
        {failure && (
          <Alert
            type="error"
            showIcon
            title={failure.text}
            description={failure.step === 'install' ? t('cert:ukey.installAgainHint') : undefined}
            style={{ marginBottom: 16 }}
            data-testid="ukey-issue-error"
          />
        )}
        {done && issued ? (
          <IssuedCertificates issued={issued} />
        ) : (
          <Form<UkeyValues>
            form={form}
            layout="vertical"
            initialValues={initialValues}
            disabled={running}
            onValuesChange={(changed) => {
              // Dual certificates are for SM2 only: another algorithm goes back to single.
              if (changed.algorithm && changed.algorithm !== 'SM2') form.setFieldValue('spec', 'single');
            }}
            onFinish={(values) => void submit(values)}
          >
            {!locked && <Alert type="info" title={t('cert:ukey.intro')} style={{ marginBottom: 16 }} />}
            <Row gutter={12}>
              <Col xs={24} md={12}>
                <Form.Item
                  name="user"
                  label={t('cert:ukey.user')}
                  extra={t('cert:ukey.userHint')}
                  rules={[required(t('cert:ukey.user'))]}
                >
                  <PagedSelect<{ id: string; username: string }>
                    labelInValue
                    disabled={locked}
                    queryKey={['cert', 'ukey', 'users']}
                    fetchPage={(page, pageSize, search) =>
                      listUsers({
                        page,
                        page_size: pageSize,
                        ...(search.trim() ? { username: search.trim() } : {}),
                      })
                    }
                    toOption={(user) => ({ value: user.id, label: user.username })}
                    data-testid="ukey-user"
                  />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item
                  name="ukey_type"
                  label={t('cert:ukey.ukeyType')}
                  extra={t('cert:ukey.ukeyTypeHint')}
                  rules={schemaRules('ukey_type', t('cert:ukey.ukeyType'))}
                >
                  <Input disabled={locked} maxLength={64} data-testid="ukey-type" />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item name="algorithm" label={t('cert:ukey.algorithm')}>
                  <Radio.Group
                    disabled={locked}
                    optionType="button"
                    options={ukeyAlgorithms.map((value) => ({
                      value,
                      label: <span data-testid={`ukey-algorithm-${value}`}>{value}</span>,
                    }))}
                  />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item
                  name="spec"
                  label={t('cert:ukey.spec')}
                  extra={algorithm === 'SM2' ? undefined : t('cert:ukey.dualSm2Only')}
                >
                  <Radio.Group
                    disabled={locked}
                    options={ukeySpecs
                      .filter((spec) => spec === 'single' || algorithm === 'SM2')
                      .map((spec) => ({
                        value: spec,
                        label: <span data-testid={`ukey-spec-${spec}`}>{t(`cert:ukey.specs.${spec}`)}</span>,
                      }))}
                  />
                </Form.Item>
              </Col>
            </Row>
            <Form.Item
              name="serial"
              label={t('cert:ukey.serial')}
              rules={[required(t('cert:ukey.serial'))]}
              extra={
                tokens.isError || (tokens.isSuccess && tokenList.length === 0) ? (
                  <Alert
                    type={tokens.isError ? 'error' : 'warning'}
                    showIcon
                    style={{ marginTop: 8 }}
                    title={
                      tokens.isError
                        ? bridgeText(tokens.error) || t('cert:ukey.unknownError')
                        : t('cert:ukey.noToken')
                    }
                    description={t('cert:ukey.bridgeHint')}
                    action={
                      <Button
                        size="small"
                        onClick={() => void tokens.refetch()}
                        data-testid="ukey-bridge-retry"
                      >
                        {t('cert:ukey.retry')}
                      </Button>
                    }
                    data-testid="ukey-bridge-error"
                  />
                ) : undefined
              }
            >
              <Select
                disabled={locked}
                loading={tokens.isFetching}
                placeholder={t('cert:ukey.serialPlaceholder')}
                options={tokenList.map((token) => ({
                  value: token.serial,
                  label: token.label ? `${token.label} (${token.serial})` : token.serial,
                }))}
                data-testid="ukey-serial"
              />
            </Form.Item>
            <Row gutter={12}>
              <Col xs={24} md={8}>
                <Form.Item
                  name="pin"
                  label={t('cert:ukey.pin')}
                  rules={[
                    required(t('cert:ukey.pin')),
                    { min: UKEY_PIN_MIN, message: t('common:validation.pinMin') },
                    { max: 64 },
                  ]}
                >
                  <PasswordInput autoComplete="off" maxLength={64} data-testid="ukey-pin" />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item
                  name="confirm"
                  label={t('cert:ukey.pinConfirm')}
                  dependencies={['pin']}
                  rules={[
                    required(t('cert:ukey.pinConfirm')),
                    ({ getFieldValue }) => ({
                      validator: (_rule, value: unknown) =>
                        value === getFieldValue('pin')
                          ? Promise.resolve()
                          : Promise.reject(new Error(t('cert:ukey.pinMismatch'))),
                    }),
                  ]}
                >
                  <PasswordInput autoComplete="off" maxLength={64} data-testid="ukey-pin-confirm" />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item
                  name="validity_days"
                  label={t('cert:ukey.validityDays')}
                  rules={[
                    required(t('cert:ukey.validityDays')),
                    ...schemaRules('validity_days', t('cert:ukey.validityDays')),
                  ]}
                >
                  <InputNumber
                    disabled={locked}
                    min={1}
                    max={3650}
                    precision={0}
                    style={{ width: '100%' }}
                    data-testid="ukey-validity"
                  />
                </Form.Item>
              </Col>
            </Row>
          </Form>
        )}
      </div>
    </Modal>
  );
}

/** The certificates issued, and that the UKEY is bound. */
function IssuedCertificates({ issued }: { issued: Issued }) {
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
