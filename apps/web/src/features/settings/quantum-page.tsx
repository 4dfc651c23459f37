import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
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
import { api, QuantumSettings, quantumSourceTypes, type QuantumSourceType } from '@ksp/contracts';
import { fetchQuantumStatus, quantumKeys, testQuantum, updateQuantum } from '../../api/quantum';
import { useCanCall } from '../../components/permissions';
import { SwitchField } from '../../components/switch-field';
import { useSubmit } from '../../components/use-submit';
import { useViewActive } from '../../components/view-activity';
import { limitsAt } from '../../components/schema-limits';
import { requiredRule } from '../../components/schema-rules';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import {
  endpointProblem,
  failureInMessage,
  QUANTUM_REFRESH_MS,
  settingsOf,
  updateBody,
  validMinEntropy,
  type QuantumFormValues,
} from './quantum-values';
import { errorText, StatusCard, TestOutcome, type TestResult } from './quantum-status';

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

  const wholeNumber = (name: 'block_bytes' | 'interval_seconds', extra?: string) => (
    <WholeNumberField
      name={name}
      label={label[name]}
      extra={extra}
      range={limitsAt(QuantumSettings, [name])}
      testId={`quantum-${name.replaceAll('_', '-')}`}
    />
  );

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
              rules={[requiredRule(t('quantum:fields.sourceType'))]}
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
                  {/* No min / max: antd would keep a number out of range to itself; the rule above says the range. */}
                  <InputNumber step={0.1} style={{ width: '100%' }} data-testid="quantum-min-entropy" />
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
