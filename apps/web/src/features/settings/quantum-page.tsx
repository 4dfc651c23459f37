import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Descriptions,
  Flex,
  Form,
  Input,
  InputNumber,
  Row,
  Select,
  Skeleton,
  Typography,
} from 'antd';
import type { Rule } from 'antd/es/form';
import dayjs from 'dayjs';
import {
  api,
  quantumSourceTypes,
  type DataOf,
  type QuantumFailure,
  type QuantumSourceType,
  type QuantumState,
  type QuantumStatus,
} from '@ksp/contracts';
import { fetchQuantumStatus, quantumKeys, testQuantum, updateQuantum } from '../../api/quantum';
import { StatusTag } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { formatThousands } from '../../components/number-format';
import { useCanCall } from '../../components/permissions';
import { SwitchField } from '../../components/switch-field';
import { useSubmit } from '../../components/use-submit';
import { useViewActive } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import {
  endpointProblem,
  failureInMessage,
  formatBytes,
  formatRate,
  MAX_MIN_ENTROPY,
  QUANTUM_REFRESH_MS,
  quantumBounds,
  settingsOf,
  updateBody,
  validMinEntropy,
  type QuantumFormValues,
} from './quantum-values';

type TestResult = DataOf<typeof api.quantum.test>;

const statusColors: Record<QuantumStatus, string> = {
  normal: 'green',
  invalid: 'red',
  disabled: 'default',
};

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The status of the source on the node that answered. */
function StatusCard({ state, fetchedAt }: { state: QuantumState; fetchedAt: number }) {
  const t = useT();
  const statusLabels: Record<QuantumStatus, string> = {
    normal: t('quantum:status.normal'),
    invalid: t('quantum:status.invalid'),
    disabled: t('quantum:status.disabled'),
  };
  const failureText = (failure: QuantumFailure) => t(`quantum:failures.${failure}`);
  const wrap = { wordBreak: 'break-word' } as const;

  return (
    <Card
      title={t('quantum:statusTitle')}
      data-testid="quantum-status-card"
      extra={
        <Typography.Text type="secondary" data-testid="quantum-updated-at">
          {t('quantum:updatedAt', { time: dayjs(fetchedAt).format('HH:mm:ss') })}
        </Typography.Text>
      }
    >
      <Flex vertical gap={16}>
        <Descriptions
          size="small"
          column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 1, xxl: 2 }}
          items={[
            {
              key: 'status',
              label: t('quantum:info.status'),
              children: (
                <StatusTag
                  value={state.status}
                  colors={statusColors}
                  labels={statusLabels}
                  testId="quantum-status"
                />
              ),
            },
            {
              key: 'source',
              label: t('quantum:info.source'),
              children: (
                <span style={wrap} data-testid="quantum-current-source">
                  {state.endpoint
                    ? `${t(`quantum:sourceTypes.${state.source_type}`)} · ${state.endpoint}`
                    : t('quantum:info.noSource')}
                </span>
              ),
            },
            {
              key: 'node',
              label: t('quantum:info.node'),
              children: <span style={wrap}>{state.node}</span>,
            },
            {
              key: 'lastCheck',
              label: t('quantum:info.lastCheck'),
              children: state.last_check ? formatDateTime(state.last_check) : t('quantum:info.never'),
            },
            {
              key: 'throughput',
              label: t('quantum:info.throughput'),
              children: <span data-testid="quantum-throughput">{formatRate(state.throughput)}</span>,
            },
            {
              key: 'bytes',
              label: t('quantum:info.bytesConsumed'),
              children: (
                <span
                  data-testid="quantum-bytes-consumed"
                  data-value={state.bytes_consumed}
                  title={formatThousands(state.bytes_consumed)}
                >
                  {formatBytes(state.bytes_consumed)}
                </span>
              ),
            },
            {
              key: 'failures',
              label: t('quantum:info.failures'),
              children: <span data-testid="quantum-failures">{formatThousands(state.failures)}</span>,
            },
            { key: 'rct', label: t('quantum:info.rctCutoff'), children: state.rct_cutoff },
            { key: 'apt', label: t('quantum:info.aptCutoff'), children: state.apt_cutoff },
          ]}
        />
        {state.status === 'invalid' && (state.failure || state.detail) && (
          <Alert
            type="error"
            showIcon
            data-testid="quantum-failure"
            title={state.failure ? failureText(state.failure) : t('quantum:status.invalid')}
            description={state.detail ? <span style={wrap}>{state.detail}</span> : undefined}
          />
        )}
        <Alert type="info" showIcon title={t('quantum:note')} />
        <Typography.Text type="secondary">
          {t('quantum:info.perNode')} {t('quantum:refreshHint', { seconds: QUANTUM_REFRESH_MS / 1000 })}
        </Typography.Text>
      </Flex>
    </Card>
  );
}

/** The outcome of "Test now": ok or the failure, its detail, the bytes read and the time. */
function TestOutcome({ result, error }: { result: TestResult | null; error: string | null }) {
  const t = useT();
  if (error !== null) {
    return (
      <div data-testid="quantum-test-result" data-ok="false">
        <Alert type="error" showIcon title={t('quantum:test.error')} description={error} />
      </div>
    );
  }
  if (!result) return null;
  const figures = t('quantum:test.figures', { bytes: formatBytes(result.bytes), ms: result.ms.toFixed(1) });
  return (
    <div data-testid="quantum-test-result" data-ok={String(result.ok)}>
      <Alert
        type={result.ok ? 'success' : 'error'}
        showIcon
        title={
          result.ok
            ? t('quantum:test.ok')
            : `${t('quantum:test.failed')}: ${
                result.failure ? t(`quantum:failures.${result.failure}`) : t('quantum:status.invalid')
              }`
        }
        description={
          <Flex vertical>
            {result.detail && <span style={{ wordBreak: 'break-word' }}>{result.detail}</span>}
            <span>{figures}</span>
          </Flex>
        }
      />
    </div>
  );
}

/** Settings › quantum: the entropy source's status on this node, its settings and a test. */
export default function QuantumPage() {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const active = useViewActive();
  const canWrite = useCanCall(api.quantum.update);
  const canTest = useCanCall(api.quantum.test);
  const [form] = Form.useForm<QuantumFormValues>();
  const save = useSubmit();
  const test = useSubmit();
  const [saveError, setSaveError] = useState<string | null>(null);
  const [testResult, setTestResult] = useState<TestResult | null>(null);
  const [testError, setTestError] = useState<string | null>(null);
  const status = useQuery({
    queryKey: quantumKeys.status,
    queryFn: fetchQuantumStatus,
    refetchInterval: active ? QUANTUM_REFRESH_MS : false,
  });
  const sourceType: QuantumSourceType =
    Form.useWatch('source_type', form) ?? status.data?.source_type ?? 'device';

  const label = {
    endpoint: t('quantum:fields.endpoint'),
    block_bytes: t('quantum:fields.blockBytes'),
    interval_seconds: t('quantum:fields.intervalSeconds'),
  };

  const endpointRule: Rule = ({ getFieldValue }) => ({
    validator: (_rule, value: unknown) => {
      const problem = endpointProblem(
        getFieldValue('source_type') as QuantumSourceType,
        typeof value === 'string' ? value : '',
        getFieldValue('enabled') === true,
      );
      if (problem === null) return Promise.resolve();
      const text = {
        required: t('quantum:validation.endpointRequired'),
        path: t('quantum:validation.endpointPath'),
        url: t('quantum:validation.endpointUrl'),
      }[problem];
      return Promise.reject(new Error(text));
    },
  });

  const wholeNumber = (name: keyof typeof quantumBounds, extra?: string) => {
    const [min, max] = quantumBounds[name];
    return (
      <Form.Item
        name={name}
        label={label[name]}
        extra={extra}
        rules={[
          { required: true, message: t('common:validation.required', { label: label[name] }) },
          {
            type: 'integer',
            min,
            max,
            message: t('quantum:validation.range', { label: label[name], min, max }),
          },
        ]}
      >
        <InputNumber
          min={min}
          max={max}
          precision={0}
          style={{ width: '100%' }}
          data-testid={`quantum-${name.replaceAll('_', '-')}`}
        />
      </Form.Item>
    );
  };

  const onSave = (values: QuantumFormValues) =>
    void save.run(async () => {
      setSaveError(null);
      try {
        const saved = await updateQuantum(updateBody(values));
        queryClient.setQueryData(quantumKeys.status, saved);
        form.setFieldsValue(settingsOf(saved));
        void message.success(t('common:feedback.saved'));
      } catch (error) {
        // The form keeps what was typed; the server's reason shows beside it.
        setSaveError(errorText(error));
        throw error;
      }
    });

  const onTest = () =>
    void test.run(async () => {
      setTestError(null);
      setTestResult(null);
      try {
        const result = await testQuantum();
        setTestResult(result);
        queryClient.setQueryData(quantumKeys.status, result.state);
      } catch (error) {
        setTestError(errorText(error));
        throw error;
      }
    });

  const refusedFor = saveError === null ? null : failureInMessage(saveError);

  if (!status.data) {
    return (
      <Card>
        <Skeleton active />
      </Card>
    );
  }

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <StatusCard state={status.data} fetchedAt={status.dataUpdatedAt} />
      </Col>
      <Col xs={24} xl={12}>
        <Card title={t('quantum:settingsTitle')}>
          <Form<QuantumFormValues>
            form={form}
            layout="vertical"
            initialValues={settingsOf(status.data)}
            disabled={!canWrite}
            onFinish={onSave}
            onValuesChange={() => setSaveError(null)}
            data-testid="quantum-form"
          >
            <SwitchField
              name="enabled"
              label={t('quantum:fields.enabled')}
              extra={t('quantum:fields.enabledHint')}
              testId="quantum-enabled"
            />
            <Form.Item
              name="source_type"
              label={t('quantum:fields.sourceType')}
              extra={t(`quantum:sourceHints.${sourceType}`)}
              rules={[
                {
                  required: true,
                  message: t('common:validation.required', { label: t('quantum:fields.sourceType') }),
                },
              ]}
            >
              <Select
                data-testid="quantum-source-type"
                options={quantumSourceTypes.map((type) => ({
                  value: type,
                  label: t(`quantum:sourceTypes.${type}`),
                }))}
              />
            </Form.Item>
            <Form.Item
              name="endpoint"
              label={label.endpoint}
              rules={[endpointRule]}
              dependencies={['enabled', 'source_type']}
            >
              <Input
                maxLength={1024}
                placeholder={t(`quantum:placeholders.${sourceType}`)}
                autoComplete="off"
                spellCheck={false}
                data-testid="quantum-endpoint"
              />
            </Form.Item>
            <Row gutter={16}>
              <Col xs={24} sm={8}>
                <Form.Item
                  name="min_entropy"
                  label={t('quantum:fields.minEntropy')}
                  tooltip={t('quantum:fields.minEntropyHint')}
                  rules={[
                    {
                      validator: (_rule, value: unknown) =>
                        validMinEntropy(value)
                          ? Promise.resolve()
                          : Promise.reject(new Error(t('quantum:validation.minEntropy'))),
                    },
                  ]}
                >
                  <InputNumber
                    min={0}
                    max={MAX_MIN_ENTROPY}
                    step={0.1}
                    style={{ width: '100%' }}
                    data-testid="quantum-min-entropy"
                  />
                </Form.Item>
              </Col>
              <Col xs={24} sm={8}>
                {wholeNumber('block_bytes', t('quantum:fields.blockBytesHint'))}
              </Col>
              <Col xs={24} sm={8}>
                {wholeNumber('interval_seconds')}
              </Col>
            </Row>
            {saveError !== null && (
              <Alert
                type="error"
                showIcon
                style={{ marginBottom: 16 }}
                data-testid="quantum-save-error"
                title={
                  refusedFor
                    ? `${t('quantum:saveRefused')}: ${t(`quantum:failures.${refusedFor}`)}`
                    : t('quantum:saveRefused')
                }
                description={<span style={{ wordBreak: 'break-word' }}>{saveError}</span>}
              />
            )}
            {canWrite ? (
              <Button type="primary" htmlType="submit" data-testid="quantum-save" {...save.buttonProps}>
                {t('common:actions.save')}
              </Button>
            ) : (
              <Alert type="info" showIcon title={t('quantum:readOnly')} />
            )}
          </Form>
        </Card>
        {canTest && (
          <Card title={t('quantum:test.action')} style={{ marginTop: 16 }}>
            <Flex vertical gap={12}>
              <Typography.Text type="secondary">{t('quantum:test.hint')}</Typography.Text>
              <div>
                <Button onClick={onTest} data-testid="quantum-test" {...test.buttonProps}>
                  {t('quantum:test.action')}
                </Button>
              </div>
              <TestOutcome result={testResult} error={testError} />
            </Flex>
          </Card>
        )}
      </Col>
    </Row>
  );
}
