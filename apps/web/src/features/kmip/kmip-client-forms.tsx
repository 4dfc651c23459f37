import { Alert, Col, Form, Input, Radio, Row, Select } from 'antd';
import type { Rule } from 'antd/es/form';
import { api, KMIP_CLIENT_KEY_ALGORITHMS, type KmipClientRow } from '@ksp/contracts';
import { createKmipClient, renewKmipClient, updateKmipClient } from '../../api/kmip';
import { ModalForm } from '../../components/form-modal';
import { PemInput } from '../../components/pem-input';
import { SingleRoleSelect } from '../../components/role-select';
import { limitsAt } from '../../components/schema-limits';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import type { IssuedCertificate } from './kmip-issued-modal';

const createBody = api.kmip.create.body!;
const renewBody = api.kmip.renew.body!;
const NAME = limitsAt(createBody, ['name']);
const VALIDITY = limitsAt(createBody, ['validity_days']);
/** The contract's default validity (365 days), read from its schema. */
const DEFAULT_VALIDITY: number = createBody.shape.validity_days.parse(undefined);
const CSR_ACCEPT = '.csr,.pem,.req';
const CSR_PLACEHOLDER = '-----BEGIN CERTIFICATE REQUEST-----';

/** The rules of a body field from the contract (required, length, pattern), with its label in the messages. */
const contractRules = (schema: typeof createBody | typeof renewBody, name: string, label: string): Rule[] =>
  rulesFromSchema(fieldSchema(schema, name), label);

const PASSWORD = limitsAt(createBody, ['pkcs12_password']);

interface CreateValues {
  name: string;
  role_id: string;
  validity_days: number;
  /** csr: the client made its key; generated: KSP makes it and answers a PKCS#12 file once. */
  key_source: 'csr' | 'generated';
  csr?: string;
  key_algorithm?: (typeof KMIP_CLIENT_KEY_ALGORITHMS)[number];
  pkcs12_password?: string;
  confirm?: string;
}

/** The key KSP makes for a new client: its algorithm and the PKCS#12 file's password, twice. */
function GeneratedKeyFields() {
  const t = useT();
  const password = t('kmip:fields.pkcs12Password');
  const confirm = t('kmip:fields.confirmPassword');
  const lengthRule = {
    min: PASSWORD.min,
    max: PASSWORD.max,
    message: t('kmip:create.passwordHint', { min: PASSWORD.min, max: PASSWORD.max }),
  };
  return (
    <>
      <Alert
        type="warning"
        showIcon
        title={t('kmip:create.generatedNote')}
        style={{ marginBottom: 12 }}
        data-testid="kmip-create-generated-note"
      />
      <Row gutter={12}>
        <Col xs={24} md={8}>
          <Form.Item name="key_algorithm" label={t('kmip:fields.keyAlgorithm')}>
            <Select
              options={KMIP_CLIENT_KEY_ALGORITHMS.map((a) => ({ value: a, label: a }))}
              data-testid="kmip-create-key-algorithm"
            />
          </Form.Item>
        </Col>
        <Col xs={24} md={8}>
          <Form.Item
            name="pkcs12_password"
            label={password}
            extra={lengthRule.message}
            rules={[
              { required: true, message: t('common:validation.required', { label: password }) },
              lengthRule,
            ]}
          >
            <Input.Password maxLength={PASSWORD.max} data-testid="kmip-create-password" />
          </Form.Item>
        </Col>
        <Col xs={24} md={8}>
          <Form.Item
            name="confirm"
            label={confirm}
            dependencies={['pkcs12_password']}
            rules={[
              { required: true, message: t('common:validation.required', { label: confirm }) },
              ({ getFieldValue }) => ({
                validator: (_rule, value) =>
                  value === undefined || value === getFieldValue('pkcs12_password')
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('kmip:create.passwordMismatch'))),
              }),
            ]}
          >
            <Input.Password maxLength={PASSWORD.max} data-testid="kmip-create-confirm" />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}

/** Add a KMIP client: its name, role, certificate validity and CSR; the server signs the CSR. */
export function CreateKmipClientModal({
  open,
  onClose,
  onIssued,
}: {
  open: boolean;
  onClose: () => void;
  onIssued: (issued: IssuedCertificate) => Promise<unknown>;
}) {
  const t = useT();
  const label = {
    name: t('kmip:fields.name'),
    role: t('kmip:fields.role'),
    validity: t('kmip:fields.validityDays'),
    csr: t('kmip:fields.csr'),
  };
  return (
    <ModalForm<CreateValues>
      open={open}
      title={t('kmip:create.title')}
      width={640}
      okText={t('kmip:create.ok')}
      okTestId="kmip-create-ok"
      formTestId="kmip-create-form"
      initialValues={{ validity_days: DEFAULT_VALIDITY, key_source: 'csr', key_algorithm: 'EC-P256' }}
      onSubmit={async (values) => {
        const name = values.name.trim();
        const issued = await createKmipClient({
          name,
          role_id: values.role_id,
          validity_days: values.validity_days,
          ...(values.key_source === 'generated'
            ? {
                key_algorithm: values.key_algorithm ?? 'EC-P256',
                pkcs12_password: values.pkcs12_password ?? '',
              }
            : { csr: (values.csr ?? '').trim() }),
        });
        await onIssued({
          title: t('kmip:issued.createdTitle', { name: issued.client.name }),
          name: issued.client.name,
          certificate_pem: issued.certificate_pem,
          chain_pem: issued.chain_pem,
          pkcs12: issued.pkcs12,
        });
      }}
      onClose={onClose}
    >
      <Alert
        type="info"
        showIcon
        title={t('kmip:create.keyNote')}
        style={{ marginBottom: 12 }}
        data-testid="kmip-create-key-note"
      />
      <Row gutter={12}>
        <Col xs={24} md={12}>
          <Form.Item
            name="name"
            label={label.name}
            extra={t('kmip:create.nameHint')}
            rules={contractRules(createBody, 'name', label.name)}
          >
            <Input maxLength={NAME.max} data-testid="kmip-create-name" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <Form.Item
            name="role_id"
            label={label.role}
            extra={t('kmip:create.roleHint')}
            rules={[{ required: true, message: t('kmip:create.roleRequired') }]}
          >
            <SingleRoleSelect data-testid="kmip-create-role" />
          </Form.Item>
        </Col>
        <Col xs={24} md={12}>
          <WholeNumberField
            name="validity_days"
            label={label.validity}
            extra={t('kmip:create.validityHint', { min: VALIDITY.min, max: VALIDITY.max })}
            range={VALIDITY}
            message={t('kmip:create.validityHint', { min: VALIDITY.min, max: VALIDITY.max })}
            testId="kmip-create-validity"
          />
        </Col>
      </Row>
      <Form.Item name="key_source" label={t('kmip:create.keySource')}>
        <Radio.Group data-testid="kmip-create-key-source">
          <Radio value="csr" data-testid="kmip-create-source-csr">
            {t('kmip:create.sourceCsr')}
          </Radio>
          <Radio value="generated" data-testid="kmip-create-source-generated">
            {t('kmip:create.sourceGenerated')}
          </Radio>
        </Radio.Group>
      </Form.Item>
      <Form.Item noStyle dependencies={['key_source']}>
        {({ getFieldValue }) =>
          getFieldValue('key_source') === 'generated' ? (
            <GeneratedKeyFields />
          ) : (
            <Form.Item
              name="csr"
              label={label.csr}
              extra={t('kmip:create.csrHint')}
              rules={[{ required: true, message: t('common:validation.required', { label: label.csr }) }]}
            >
              <PemInput accept={CSR_ACCEPT} placeholder={CSR_PLACEHOLDER} testId="kmip-create-csr" />
            </Form.Item>
          )
        }
      </Form.Item>
    </ModalForm>
  );
}

/** Change a client's role: its permissions apply to every KMIP operation it makes. */
export function KmipRoleModal({
  row,
  onClose,
  onSaved,
}: {
  row: KmipClientRow | null;
  onClose: () => void;
  onSaved: (row: KmipClientRow) => Promise<unknown>;
}) {
  const t = useT();
  return (
    <ModalForm<{ role_id: string }>
      open={row !== null}
      title={t('kmip:role.title', { name: row?.name ?? '' })}
      okTestId="kmip-role-ok"
      initialValues={row?.role_id ? { role_id: row.role_id } : undefined}
      onSubmit={async ({ role_id }) => {
        if (!row) return;
        await onSaved(await updateKmipClient({ id: row.id, role_id }));
      }}
      onClose={onClose}
    >
      <Form.Item
        name="role_id"
        label={t('kmip:fields.role')}
        extra={t('kmip:role.hint')}
        rules={[{ required: true, message: t('kmip:create.roleRequired') }]}
      >
        <SingleRoleSelect data-testid="kmip-role-select" />
      </Form.Item>
    </ModalForm>
  );
}

/** Renew a client's certificate, for the same key or a new CSR; the current certificate is revoked. */
export function KmipRenewModal({
  row,
  onClose,
  onIssued,
}: {
  row: KmipClientRow | null;
  onClose: () => void;
  onIssued: (issued: IssuedCertificate) => Promise<unknown>;
}) {
  const t = useT();
  const label = t('kmip:fields.newCsr');
  return (
    <ModalForm<{ csr?: string }>
      open={row !== null}
      title={t('kmip:renew.title', { name: row?.name ?? '' })}
      width={640}
      okText={t('kmip:renew.ok')}
      okTestId="kmip-renew-ok"
      onSubmit={async ({ csr }) => {
        if (!row) return;
        const given = csr?.trim();
        const issued = await renewKmipClient({ id: row.id, ...(given ? { csr: given } : {}) });
        await onIssued({
          title: t('kmip:issued.renewedTitle', { name: issued.client.name }),
          name: issued.client.name,
          certificate_pem: issued.certificate_pem,
          chain_pem: issued.chain_pem,
        });
      }}
      onClose={onClose}
    >
      <Alert type="info" showIcon title={t('kmip:renew.hint')} style={{ marginBottom: 12 }} />
      <Form.Item
        name="csr"
        label={label}
        extra={t('kmip:create.csrHint')}
        rules={contractRules(renewBody, 'csr', label)}
      >
        <PemInput accept={CSR_ACCEPT} placeholder={CSR_PLACEHOLDER} testId="kmip-renew-csr" />
      </Form.Item>
    </ModalForm>
  );
}
