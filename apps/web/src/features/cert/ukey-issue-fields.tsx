import { Alert, Button, Col, Form, Input, Radio, Row, Select } from 'antd';
import { api, UKEY_PIN_MAX, UKEY_PIN_MIN, ukeyAlgorithms, ukeySpecs } from '@ksp/contracts';
import { listUsers } from '../../api/access';
import type { UkeyAlgorithm } from '../../api/ukey';
import { PagedSelect } from '../../components/paged-select';
import { PasswordInput } from '../../components/password-input';
import { limitsAt } from '../../components/schema-limits';
import { fieldSchema, requiredRule, rulesFromSchema } from '../../components/schema-rules';
import { WholeNumberInput } from '../../components/whole-number-input';
import { useT } from '../../i18n/i18n';
import type { UkeyValues, useUkeyIssue } from './use-ukey-issue';

const schema = api.cert.ukeyIssue.body!;
const UKEY_TYPE = limitsAt(schema, ['ukey_type']);

interface Props {
  algorithm: UkeyAlgorithm;
  /** The certificates are issued: only the PIN is asked again, to write them. */
  locked: boolean;
  issue: Pick<ReturnType<typeof useUkeyIssue>, 'tokens' | 'tokenList' | 'bridgeText'>;
}

/** The fields of a UKEY issue: the user, the token, its algorithm and spec, the PIN and the validity. */
export function UkeyIssueFields({ algorithm, locked, issue }: Props) {
  const t = useT();
  const { tokens, tokenList, bridgeText } = issue;
  const schemaRules = (name: keyof UkeyValues, label: string) =>
    rulesFromSchema(fieldSchema(schema, name), label);

  return (
    <>
      <Row gutter={12}>
        <Col xs={24} md={12}>
          <Form.Item
            name="user"
            label={t('cert:ukey.user')}
            extra={t('cert:ukey.userHint')}
            rules={[requiredRule(t('cert:ukey.user'))]}
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
            <Input disabled={locked} maxLength={UKEY_TYPE.max} data-testid="ukey-type" />
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
        rules={[requiredRule(t('cert:ukey.serial'))]}
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
                <Button size="small" onClick={() => void tokens.refetch()} data-testid="ukey-bridge-retry">
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
              requiredRule(t('cert:ukey.pin')),
              { min: UKEY_PIN_MIN, message: t('common:validation.pinMin') },
              { max: UKEY_PIN_MAX },
            ]}
          >
            <PasswordInput autoComplete="off" maxLength={UKEY_PIN_MAX} data-testid="ukey-pin" />
          </Form.Item>
        </Col>
        <Col xs={24} md={8}>
          <Form.Item
            name="confirm"
            label={t('cert:ukey.pinConfirm')}
            dependencies={['pin']}
            rules={[
              requiredRule(t('cert:ukey.pinConfirm')),
              ({ getFieldValue }) => ({
                validator: (_rule, value: unknown) =>
                  value === getFieldValue('pin')
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('cert:ukey.pinMismatch'))),
              }),
            ]}
          >
            <PasswordInput autoComplete="off" maxLength={UKEY_PIN_MAX} data-testid="ukey-pin-confirm" />
          </Form.Item>
        </Col>
        <Col xs={24} md={8}>
          <Form.Item
            name="validity_days"
            label={t('cert:ukey.validityDays')}
            rules={[
              requiredRule(t('cert:ukey.validityDays')),
              ...schemaRules('validity_days', t('cert:ukey.validityDays')),
            ]}
          >
            <WholeNumberInput disabled={locked} data-testid="ukey-validity" />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
