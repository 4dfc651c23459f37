import { useState } from 'react';
import { DeleteOutlined, ExperimentOutlined, PlusOutlined } from '@ant-design/icons';
import {
  AutoComplete,
  Button,
  Col,
  Divider,
  Drawer,
  Flex,
  Form,
  Grid,
  Input,
  Row,
  Tag,
  Typography,
} from 'antd';
import type { Rule } from 'antd/es/form';
import { api } from '@ksp/contracts';
import { createLdap, updateLdap } from '../../api/access';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { LdapTestModal, type LdapTestSource } from './ldap-test';
import { ldapBody, ldapValuesOf, newLdapValues, type LdapFormValues, type LdapRow } from './ldap-values';
import { SingleRoleSelect } from './option-selects';
import { SwitchField } from '../../components/switch-field';

const URL_PATTERN = /^ldaps?:\/\/[^\s/]+(:\d{1,5})?\/?$/i;

/** Create (row null) or change an LDAP connection; "Test" runs on the values as typed. */
export function LdapFormDrawer({
  open,
  row,
  onClose,
  onSaved,
}: {
  open: boolean;
  row: LdapRow | null;
  onClose: () => void;
  onSaved: (saved: LdapRow) => void | Promise<void>;
}) {
  const t = useT();
  const screens = Grid.useBreakpoint();
  const [form] = Form.useForm<LdapFormValues>();
  const { run, buttonProps } = useSubmit();
  const [testing, setTesting] = useState<LdapTestSource | null>(null);
  const [foundGroups, setFoundGroups] = useState<string[]>([]);
  const schema = api.ldap.create.body;
  const rulesOf = (name: keyof LdapFormValues, label: string): Rule[] =>
    rulesFromSchema(fieldSchema(schema, name), label);

  const save = (values: LdapFormValues) =>
    run(async () => {
      const body = ldapBody(values);
      const saved = row
        ? await updateLdap({
            id: row.id,
            ...body,
            // Empty keeps the stored password.
            bind_password: body.bind_password || undefined,
          })
        : await createLdap(body);
      await onSaved(saved);
    }, onClose);

  const testUnsaved = async () => {
    try {
      const values = await form.validateFields();
      setTesting({ id: row?.id, name: values.name, values });
    } catch {
      // The form shows what is missing.
    }
  };

  const text = (
    name: keyof LdapFormValues,
    label: string,
    testId: string,
    extra?: string,
    rules?: Rule[],
  ) => (
    <Form.Item name={name} label={label} extra={extra} rules={rules ?? rulesOf(name, label)}>
      <Input autoComplete="off" data-testid={testId} />
    </Form.Item>
  );
  const col = { xs: 24, md: 12 };

  return (
    <Drawer
      open={open}
      title={row ? t('access:ldap.editTitle', { name: row.name }) : t('access:ldap.createTitle')}
      size={screens.md ? 760 : '100%'}
      onClose={onClose}
      destroyOnHidden
      footer={
        <Flex justify="space-between" wrap gap={8}>
          <Button
            icon={<ExperimentOutlined />}
            onClick={() => void testUnsaved()}
            data-testid="ldap-form-test"
          >
            {t('access:ldap.test')}
          </Button>
          <Flex gap={8}>
            <Button onClick={onClose}>{t('common:actions.cancel')}</Button>
            <Button type="primary" {...buttonProps} onClick={() => form.submit()} data-testid="ldap-save">
              {t('common:actions.save')}
            </Button>
          </Flex>
        </Flex>
      }
    >
      <Form<LdapFormValues>
        form={form}
        layout="vertical"
        clearOnDestroy
        initialValues={row ? ldapValuesOf(row) : newLdapValues()}
        onFinish={(values) => void save(values)}
        data-testid="ldap-form"
      >
        <Divider titlePlacement="start" style={{ marginTop: 0 }}>
          {t('access:ldap.sections.connection')}
        </Divider>
        <Row gutter={16}>
          <Col {...col}>
            {text('name', t('access:ldap.fields.name'), 'ldap-name', t('access:ldap.nameHint'))}
          </Col>
          <Col {...col}>
            {text('url', t('access:ldap.fields.url'), 'ldap-url', t('access:ldap.urlHint'), [
              {
                required: true,
                whitespace: true,
                message: t('common:validation.required', { label: t('access:ldap.fields.url') }),
              },
              {
                validator: (_rule, value: unknown) =>
                  typeof value !== 'string' || value.trim() === '' || URL_PATTERN.test(value.trim())
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('access:ldap.urlInvalid'))),
              },
            ])}
          </Col>
          <Col {...col}>
            {text('bind_dn', t('access:ldap.fields.bindDn'), 'ldap-bind-dn', t('access:ldap.bindDnHint'))}
          </Col>
          <Col {...col}>
            <Form.Item
              name="bind_password"
              label={t('access:ldap.fields.bindPassword')}
              extra={
                row ? (
                  <>
                    {row.has_bind_password ? (
                      <Tag color="green">{t('access:ldap.passwordStored')}</Tag>
                    ) : (
                      <Tag>{t('access:ldap.passwordNone')}</Tag>
                    )}
                    {t('access:ldap.passwordKeep')}
                  </>
                ) : (
                  t('access:ldap.passwordWriteOnly')
                )
              }
              rules={rulesOf('bind_password', t('access:ldap.fields.bindPassword'))}
            >
              <Input.Password autoComplete="new-password" data-testid="ldap-bind-password" />
            </Form.Item>
          </Col>
          <Col xs={24}>
            <Form.Item
              name="ca_certificate"
              label={t('access:ldap.fields.caCertificate')}
              extra={t('access:ldap.caHint')}
              rules={rulesOf('ca_certificate', t('access:ldap.fields.caCertificate'))}
            >
              <Input.TextArea
                autoSize={{ minRows: 2, maxRows: 8 }}
                placeholder="-----BEGIN CERTIFICATE-----"
                style={{ fontFamily: 'monospace' }}
                data-testid="ldap-ca"
              />
            </Form.Item>
          </Col>
          <Col xs={24}>
            <SwitchField
              name="verify_certificate"
              label={t('access:ldap.fields.verifyCertificate')}
              extra={t('access:ldap.verifyHint')}
              testId="ldap-verify"
            />
          </Col>
        </Row>

        <Divider titlePlacement="start">{t('access:ldap.sections.users')}</Divider>
        <Row gutter={16}>
          <Col xs={24}>{text('user_base_dn', t('access:ldap.fields.userBaseDn'), 'ldap-user-base')}</Col>
          <Col {...col}>
            {text(
              'username_attribute',
              t('access:ldap.fields.usernameAttribute'),
              'ldap-username-attr',
              t('access:ldap.usernameAttributeHint'),
            )}
          </Col>
          <Col {...col}>
            {text(
              'user_dn_attribute',
              t('access:ldap.fields.userDnAttribute'),
              'ldap-user-dn-attr',
              t('access:ldap.userDnAttributeHint'),
            )}
          </Col>
          <Col {...col}>
            {text(
              'unique_id_attribute',
              t('access:ldap.fields.uniqueIdAttribute'),
              'ldap-unique-attr',
              t('access:ldap.uniqueIdHint'),
            )}
          </Col>
          <Col {...col}>{text('user_filter', t('access:ldap.fields.userFilter'), 'ldap-user-filter')}</Col>
        </Row>

        <Divider titlePlacement="start">{t('access:ldap.sections.groups')}</Divider>
        <Row gutter={16}>
          <Col xs={24}>
            {text(
              'group_base_dn',
              t('access:ldap.fields.groupBaseDn'),
              'ldap-group-base',
              t('access:ldap.groupBaseHint'),
            )}
          </Col>
          <Col {...col}>{text('group_filter', t('access:ldap.fields.groupFilter'), 'ldap-group-filter')}</Col>
          <Col {...col}>
            {text('group_id_attribute', t('access:ldap.fields.groupIdAttribute'), 'ldap-group-id-attr')}
          </Col>
          <Col {...col}>
            {text(
              'group_member_attribute',
              t('access:ldap.fields.groupMemberAttribute'),
              'ldap-group-member-attr',
              t('access:ldap.groupMemberHint'),
            )}
          </Col>
        </Row>

        <Divider titlePlacement="start">{t('access:ldap.sections.mapping')}</Divider>
        <Typography.Paragraph type="secondary">{t('access:ldap.mappingHelp')}</Typography.Paragraph>
        <Form.List name="group_roles">
          {(items, { add, remove }) => (
            <Flex vertical gap={0} data-testid="ldap-mapping">
              {items.map((item, index) => (
                <Flex key={item.key} gap={8} align="flex-start" wrap={!screens.sm}>
                  <Form.Item
                    name={[item.name, 'group']}
                    rules={[{ required: true, whitespace: true, message: t('access:ldap.groupRequired') }]}
                    style={{ flex: '1 1 200px', minWidth: 0 }}
                  >
                    <AutoComplete
                      options={foundGroups.map((group) => ({ value: group }))}
                      placeholder={t('access:ldap.fields.group')}
                      showSearch={{ filterOption: true }}
                    >
                      <Input data-testid={`ldap-map-group-${index}`} />
                    </AutoComplete>
                  </Form.Item>
                  <Form.Item
                    name={[item.name, 'role_id']}
                    rules={[{ required: true, message: t('access:ldap.roleRequired') }]}
                    style={{ flex: '1 1 200px', minWidth: 0 }}
                  >
                    <SingleRoleSelect
                      placeholder={t('access:ldap.fields.role')}
                      data-testid={`ldap-map-role-${index}`}
                    />
                  </Form.Item>
                  <Button
                    icon={<DeleteOutlined />}
                    aria-label={t('access:common.remove')}
                    onClick={() => remove(item.name)}
                    data-testid={`ldap-map-remove-${index}`}
                  />
                </Flex>
              ))}
              <Button
                type="dashed"
                icon={<PlusOutlined />}
                onClick={() => add({ group: '', role_id: undefined })}
                data-testid="ldap-map-add"
              >
                {t('access:ldap.addMapping')}
              </Button>
            </Flex>
          )}
        </Form.List>
      </Form>
      <LdapTestModal source={testing} onClose={() => setTesting(null)} onGroups={setFoundGroups} />
    </Drawer>
  );
}
