import { Alert, Col, Form, Input, Radio, Row, Select } from 'antd';
import type { Rule } from 'antd/es/form';
import { api, caAlgorithms, certPurposes } from '@ksp/contracts';
import { issueCert, type LocalCaRow } from '../../api/cert';
import { ModalForm } from '../../components/form-modal';
import { SwitchField } from '../../components/switch-field';
import { useT } from '../../i18n/i18n';
import { issueBody, issueDefaults, issueFormShape, signsOnly, type IssueValues } from './issue-model';
import { PemInput } from '../../components/pem-input';
import { readCertFile } from './cert-files';
import { certFieldRules } from './cert-rules';
import { requiredRule } from '../../components/schema-rules';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';

const schema = api.cert.issue.body;
const VALIDITY_DAYS = limitsAt(schema!, ['validity_days']);
const PATH_LEN = limitsAt(schema!, ['path_len']);

/**
 * Issue a certificate: from a pasted or uploaded CSR, or for a key pair the server
 * generates. The form offers only what fits together: signature alone for Ed25519 and
 * ML-DSA keys, a path length only for an intermediate CA, "exportable" only for a
 * generated key.
 */
export function IssueModal({
  open,
  cas,
  onClose,
  onIssued,
}: {
  open: boolean;
  /** The active local CAs. */
  cas: readonly LocalCaRow[];
  onClose: () => void;
  onIssued: () => Promise<unknown>;
}) {
  const t = useT();
  const [form] = Form.useForm<IssueValues>();
  const source = Form.useWatch('source', form) ?? 'csr';
  const keyAlgorithm = Form.useWatch('key_algorithm', form);
  const purpose = Form.useWatch('purpose', form) ?? 'server';
  const shape = issueFormShape({ source, key_algorithm: keyAlgorithm, purpose });

  const rules = (name: keyof IssueValues, label: string, extra: Rule[] = []): Rule[] => [
    ...certFieldRules(schema, name, label),
    ...extra,
  ];
  const text = (name: keyof IssueValues, label: string, extraRules: Rule[] = [], hint?: string) => (
    <Form.Item name={name} label={label} rules={rules(name, label, extraRules)} extra={hint}>
      <Input data-testid={`issue-${name}`} />
    </Form.Item>
  );
  const defaultCa = cas.find((ca) => ca.is_default) ?? cas[0];

  return (
    <ModalForm<IssueValues>
      open={open}
      title={t('cert:certs.issueTitle')}
      form={form}
      width={720}
      okText={t('cert:certs.issue')}
      okTestId="issue-ok"
      formTestId="issue-form"
      initialValues={{ ...issueDefaults, ca_id: defaultCa?.id }}
      onValuesChange={(changed, all) => {
        // A choice that takes a usage away moves the form to one it still offers.
        if (
          ('key_algorithm' in changed || 'source' in changed) &&
          !issueFormShape(all).usages.includes(all.usage)
        ) {
          form.setFieldValue('usage', 'signature');
        }
      }}
      onSubmit={async (values) => {
        await issueCert(issueBody(values));
        await onIssued();
      }}
      onClose={onClose}
    >
      {cas.length === 0 && (
        <Alert type="warning" showIcon title={t('cert:certs.noActiveCa')} style={{ marginBottom: 12 }} />
      )}
      <Row gutter={12}>
        <Col xs={24} md={12}>
          {text('name', t('cert:fields.name'))}
        </Col>
        <Col xs={24} md={12}>
          <Form.Item name="ca_id" label={t('cert:fields.ca')} rules={[requiredRule(t('cert:fields.ca'))]}>
            <Select
              options={cas.map((ca) => ({ value: ca.id, label: `${ca.name} (${ca.cn})` }))}
              data-testid="issue-ca"
            />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item name="source" label={t('cert:certs.from')}>
        <Radio.Group
          optionType="button"
          options={[
            { value: 'csr', label: <span data-testid="issue-source-csr">{t('cert:certs.fromCsr')}</span> },
            {
              value: 'generated',
              label: <span data-testid="issue-source-generated">{t('cert:certs.fromGenerated')}</span>,
            },
          ]}
        />
      </Form.Item>
      {shape.csr && (
        <Form.Item
          name="csr"
          label={t('cert:certs.csrInput')}
          extra={t('cert:certs.csrHint')}
          rules={[requiredRule(t('cert:certs.csrInput')), ...rules('csr', t('cert:certs.csrInput'))]}
        >
          <PemInput
            read={readCertFile}
            accept=".csr,.pem,.req"
            placeholder="-----BEGIN CERTIFICATE REQUEST-----"
            testId="issue-csr"
          />
        </Form.Item>
      )}
      {shape.keyAlgorithm && (
        <Row gutter={12}>
          <Col xs={24} md={12}>
            <Form.Item
              name="key_algorithm"
              label={t('cert:fields.keyAlgorithm')}
              extra={t('cert:certs.generatedHint')}
            >
              <Select
                options={caAlgorithms.map((value) => ({ value, label: value }))}
                data-testid="issue-algorithm"
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={12}>
            <SwitchField
              name="exportable"
              label={t('cert:fields.exportable')}
              extra={t('cert:certs.exportableHint')}
              testId="issue-exportable"
            />
          </Col>
        </Row>
      )}
      <Row gutter={12}>
        <Col xs={24} md={12}>
          {text('cn', t('cert:fields.cn'), shape.cnRequired ? [requiredRule(t('cert:fields.cn'))] : [])}
        </Col>
        <Col xs={24} md={12}>
          {text('o', t('cert:fields.o'))}
        </Col>
        <Col xs={24} md={12}>
          {text('ou', t('cert:fields.ou'))}
        </Col>
        <Col xs={12} md={4}>
          {text('c', t('cert:fields.c'))}
        </Col>
        <Col xs={12} md={8}>
          {text('st', t('cert:fields.st'))}
        </Col>
        <Col xs={24} md={12}>
          {text('l', t('cert:fields.l'))}
        </Col>
        <Col xs={24} md={12}>
          {text('dns_names', t('cert:fields.dnsNames'), [], t('cert:common.commaHint'))}
        </Col>
        <Col xs={24} md={12}>
          {text('ip_addresses', t('cert:fields.ipAddresses'), [], t('cert:common.commaHint'))}
        </Col>
        <Col xs={24} md={12}>
          {text('emails', t('cert:fields.emails'), [], t('cert:common.commaHint'))}
        </Col>
      </Row>
      <Row gutter={12}>
        <Col xs={24} md={8}>
          <Form.Item name="purpose" label={t('cert:fields.purpose')}>
            <Select
              options={certPurposes.map((value) => ({ value, label: t(`cert:purposes.${value}`) }))}
              data-testid="issue-purpose"
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={8}>
          <Form.Item
            name="usage"
            label={t('cert:fields.usage')}
            extra={
              shape.keyAlgorithm && signsOnly(keyAlgorithm)
                ? t('cert:certs.signOnly', { algorithm: keyAlgorithm })
                : undefined
            }
          >
            <Select
              options={shape.usages.map((value) => ({ value, label: t(`cert:usages.${value}`) }))}
              data-testid="issue-usage"
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={8}>
          <WholeNumberField
            name="validity_days"
            label={t('cert:fields.validityDays')}
            range={VALIDITY_DAYS}
            testId="issue-validity"
          />
        </Col>
        {shape.pathLen && (
          <Col xs={24} md={8}>
            <WholeNumberField
              name="path_len"
              label={t('cert:fields.pathLen')}
              extra={t('cert:certs.pathLenHint')}
              range={PATH_LEN}
              optional
              testId="issue-path-len"
            />
          </Col>
        )}
      </Row>
    </ModalForm>
  );
}
