import { useQuery } from '@tanstack/react-query';
import { Checkbox, Col, Form, Input, Row, Select, Switch } from 'antd';
import { api, serverAuthTypes, serverOses, type ServerAuthType } from '@ksp/contracts';
import { listCredentials } from '../../api/credential';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import { TerminalRolePicker } from './terminal-roles';

const body = api.sshServer.create.body!;
const NAME = limitsAt(body, ['name']);
const DESCRIPTION = limitsAt(body, ['description']);
const HOST = limitsAt(body, ['host']);
const PORT = limitsAt(body, ['port']);
const ACCOUNT = limitsAt(body, ['account']);
const ROTATION_DAYS = limitsAt(body, ['rotation_days']);
const ROTATION_HOUR = limitsAt(body, ['rotation_hour']);
const ROTATION_LENGTH = limitsAt(body, ['rotation_length']);

/** What the form holds (the charset as a list of classes). */
export interface ServerFormValues {
  name: string;
  description: string;
  host: string;
  port: number;
  os: 'linux';
  account: string;
  auth_type: ServerAuthType;
  credential_id: string;
  rotation_enabled: boolean;
  rotation_days: number;
  rotation_hour: number;
  rotation_length: number;
  charset: ('lower' | 'upper' | 'digits' | 'symbols')[];
  terminal_users: string[];
  terminal_roles: string[];
}

export const serverFormDefaults: Partial<ServerFormValues> = {
  description: '',
  port: 22,
  os: 'linux',
  account: 'root',
  auth_type: 'password',
  rotation_enabled: false,
  rotation_days: 30,
  rotation_hour: 2,
  rotation_length: 24,
  charset: ['lower', 'upper', 'digits'],
  terminal_users: [],
  terminal_roles: [],
};

/** The form's values as the calls take them. */
export function toBody(v: ServerFormValues) {
  const { charset, ...rest } = v;
  return {
    ...rest,
    description: rest.description ?? '',
    rotation_lower: charset.includes('lower'),
    rotation_upper: charset.includes('upper'),
    rotation_digits: charset.includes('digits'),
    rotation_symbols: charset.includes('symbols'),
  };
}

/** The fields of the add-server form and of its edit dialog: two columns on wide screens, one below 992 px. */
export function ServerFields() {
  const t = useT();
  const form = Form.useFormInstance<ServerFormValues>();
  const auth = Form.useWatch('auth_type', form) ?? 'password';
  const rotation = Form.useWatch('rotation_enabled', form) ?? false;
  const credentials = useQuery({
    queryKey: ['credential', 'list', 'for-server', auth],
    queryFn: () =>
      listCredentials({
        page: 1,
        page_size: 1000,
        type: auth === 'password' ? 'password' : 'ssh-private-key',
      }),
  });
  const half = { xs: 24, lg: 12 };
  return (
    <Row gutter={16}>
      <Col {...half}>
        <Form.Item name="name" label={t('sshServer:fields.name')} rules={[{ required: true, max: NAME.max }]}>
          <Input data-testid="server-name" />
        </Form.Item>
      </Col>
      <Col {...half}>
        <Form.Item
          name="description"
          label={t('sshServer:fields.description')}
          rules={[{ max: DESCRIPTION.max }]}
        >
          <Input data-testid="server-description" />
        </Form.Item>
      </Col>
      <Col xs={24} lg={8}>
        <Form.Item name="host" label={t('sshServer:fields.host')} rules={[{ required: true, max: HOST.max }]}>
          <Input data-testid="server-host" />
        </Form.Item>
      </Col>
      <Col xs={12} lg={4}>
        <WholeNumberField name="port" label={t('sshServer:fields.port')} range={PORT} testId="server-port" />
      </Col>
      <Col xs={12} lg={6}>
        <Form.Item name="os" label={t('sshServer:fields.os')}>
          <Select options={serverOses.map((v) => ({ value: v, label: t(`sshServer:os.${v}`) }))} />
        </Form.Item>
      </Col>
      <Col xs={24} lg={6}>
        <Form.Item label={t('sshServer:fields.protocol')}>
          <Input value="SSH" disabled />
        </Form.Item>
      </Col>
      <Col {...half}>
        <Form.Item
          name="account"
          label={t('sshServer:fields.account')}
          extra={t('sshServer:hints.account')}
          rules={[{ required: true, max: ACCOUNT.max }]}
        >
          <Input data-testid="server-account" />
        </Form.Item>
      </Col>
      <Col {...half}>
        <Form.Item name="auth_type" label={t('sshServer:fields.authType')}>
          <Select
            data-testid="server-auth"
            options={serverAuthTypes.map((v) => ({ value: v, label: t(`sshServer:authTypes.${v}`) }))}
            onChange={() => form.setFieldValue('credential_id', undefined)}
          />
        </Form.Item>
      </Col>
      <Col xs={24}>
        <Form.Item
          name="credential_id"
          label={t('sshServer:fields.credential')}
          extra={t('sshServer:hints.credential')}
          rules={[{ required: true }]}
        >
          <Select
            showSearch={{ optionFilterProp: 'label' }}
            loading={credentials.isLoading}
            data-testid="server-credential"
            options={(credentials.data?.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
          />
        </Form.Item>
      </Col>
      <Col xs={24}>
        <Form.Item
          name="rotation_enabled"
          label={t('sshServer:fields.rotationEnabled')}
          valuePropName="checked"
          extra={t('sshServer:hints.rotation')}
        >
          <Switch data-testid="server-rotation" />
        </Form.Item>
      </Col>
      {rotation && (
        <>
          <Col xs={12} lg={6}>
            <WholeNumberField
              name="rotation_days"
              label={t('sshServer:fields.rotationDays')}
              range={ROTATION_DAYS}
              testId="server-rotation-days"
            />
          </Col>
          <Col xs={12} lg={6}>
            <WholeNumberField
              name="rotation_hour"
              label={t('sshServer:fields.rotationHour')}
              range={ROTATION_HOUR}
              testId="server-rotation-hour"
            />
          </Col>
        </>
      )}
      <Col xs={12} lg={6}>
        <WholeNumberField
          name="rotation_length"
          label={t('sshServer:fields.rotationLength')}
          range={ROTATION_LENGTH}
          testId="server-rotation-length"
        />
      </Col>
      <Col xs={24} lg={6}>
        <Form.Item
          name="charset"
          label={t('sshServer:fields.charset')}
          rules={[{ required: true, type: 'array', min: 1 }]}
        >
          <Checkbox.Group
            options={(['lower', 'upper', 'digits', 'symbols'] as const).map((c) => ({
              value: c,
              label: t(`sshServer:charset.${c}`),
            }))}
          />
        </Form.Item>
      </Col>
      <Col {...half}>
        <Form.Item
          name="terminal_users"
          label={t('sshServer:fields.terminalUsers')}
          extra={t('sshServer:hints.terminalUsers')}
        >
          <Select mode="tags" open={false} data-testid="server-terminal-users" />
        </Form.Item>
      </Col>
      <Col {...half}>
        <Form.Item
          name="terminal_roles"
          label={t('sshServer:fields.terminalRoles')}
          extra={t('sshServer:hints.terminalRoles')}
        >
          <TerminalRolePicker data-testid="server-terminal-roles" />
        </Form.Item>
      </Col>
    </Row>
  );
}
