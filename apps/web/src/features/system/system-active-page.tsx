import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Checkbox,
  Descriptions,
  Flex,
  InputNumber,
  Result,
  Space,
  Spin,
  Steps,
  Typography,
  type ButtonProps,
} from 'antd';
import { useNavigate } from 'react-router';
import type { DataOf, api } from '@ksp/contracts';
import { fetchSystemStatus, finishInit, generateComponent, systemKeys } from '../../api/system';
import { CopyButton } from '../../components/copy-button';
import { PublicPage } from '../../components/public-page';
import { LockButton } from '../../components/reclick-lock';
import { paths } from '../../config/paths';
import { useT } from '../../i18n/i18n';
import { groupComponent } from './component-groups';
import { isWellFormedSetupCode, rememberSetupCode, rememberedSetupCode, withSetupCode } from './setup-code';
import { SetupCodeField } from './setup-code-field';

type KeyComponent = DataOf<typeof api.system.initComponent>;
type Finished = DataOf<typeof api.system.initFinish>;

const MIN_COMPONENTS = 2;
const MAX_COMPONENTS = 9;
const DEFAULT_COMPONENTS = 3;

function ComponentCard({
  component,
  saved,
  onSaved,
}: {
  component: KeyComponent;
  saved: boolean;
  onSaved: (saved: boolean) => void;
}) {
  const t = useT();
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={5} style={{ margin: 0 }}>
        {t('system:init.component', { index: component.index, total: component.total })}
      </Typography.Title>
      <Alert type="warning" showIcon title={t('system:init.showOnce')} />
      <Descriptions column={1} bordered size="small">
        <Descriptions.Item label={t('system:init.value')}>
          <span className="ksp-component-value" data-testid="init-component-value">
            {groupComponent(component.component.toUpperCase())}
          </span>
        </Descriptions.Item>
        <Descriptions.Item label={t('system:init.kcv')}>
          <span className="ksp-component-value" data-testid="init-kcv">
            {component.kcv.toUpperCase()}
          </span>
        </Descriptions.Item>
      </Descriptions>
      <Space wrap>
        <CopyButton
          text={`${component.component.toUpperCase()} KCV ${component.kcv.toUpperCase()}`}
          testId="init-copy"
        />
      </Space>
      <Checkbox
        checked={saved}
        onChange={(event) => onSaved(event.target.checked)}
        data-testid="init-saved-checkbox"
      >
        {t('system:init.saved', { index: component.index })}
      </Checkbox>
    </Flex>
  );
}

/**
 * Product initialization: key components are generated one at a time, each shown once
 * with its KCV; the next one comes only after "I have saved component n" is ticked.
 */
export default function SystemActivePage() {
  const t = useT();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: systemKeys.status, queryFn: fetchSystemStatus, staleTime: 0 });
  const [total, setTotal] = useState(DEFAULT_COMPONENTS);
  const [component, setComponent] = useState<KeyComponent | null>(null);
  const [saved, setSaved] = useState(false);
  const [finished, setFinished] = useState<Finished | null>(null);
  const [busy, setBusy] = useState(false);
  const [setupCode, setSetupCode] = useState(() => rememberedSetupCode());
  const codeRequired = status.data?.setup_code_required ?? false;
  const codeReady = !codeRequired || isWellFormedSetupCode(setupCode);

  useEffect(() => {
    if (!status.data?.initialized || finished) return;
    void navigate(status.data.activated ? paths.login : paths.userActive, { replace: true });
  }, [status.data, finished, navigate]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch {
      // The client showed the server's message.
    } finally {
      setBusy(false);
    }
  };

  const next = (body: { total?: number; restart?: boolean }) =>
    run(async () => {
      const generated = await generateComponent(withSetupCode(body, codeRequired, setupCode));
      if (codeRequired) rememberSetupCode(setupCode);
      setComponent(generated);
      setSaved(false);
    });

  const finish = () =>
    run(async () => {
      const result = await finishInit(withSetupCode({}, codeRequired, setupCode));
      setComponent(null);
      setFinished(result);
      await queryClient.invalidateQueries({ queryKey: systemKeys.status });
    });
  /** The button that ends the set-up (after the last component, or when all are generated). */
  const finishButton = (props: Pick<ButtonProps, 'type' | 'disabled'>) => (
    <LockButton {...props} loading={busy} onClick={() => void finish()} data-testid="init-finish">
      {t('system:init.finish')}
    </LockButton>
  );

  if (status.isPending) {
    return (
      <PublicPage width={640}>
        <Spin description={t('system:checking')} />
      </PublicPage>
    );
  }

  const inProgress = status.data && status.data.components_generated > 0 ? status.data : null;
  const current = finished ? 2 : component ? 1 : 0;

  let body;
  if (finished) {
    body = (
      <Result
        status="success"
        title={t('system:init.doneTitle')}
        subTitle={
          <Flex vertical>
            <span data-testid="init-root-kcv">{t('system:init.rootKcv', { kcv: finished.kcv })}</span>
            <span>{t('system:init.sealFile', { file: finished.seal_file })}</span>
          </Flex>
        }
        extra={
          <Button
            type="primary"
            data-testid="init-to-activation"
            onClick={() => void navigate(paths.userActive)}
          >
            {t('system:init.toActivation')}
          </Button>
        }
      />
    );
  } else if (component) {
    const last = component.index >= component.total;
    body = (
      <Flex vertical gap={16}>
        <ComponentCard component={component} saved={saved} onSaved={setSaved} />
        <Flex justify="flex-end">
          {last ? (
            finishButton({ type: 'primary', disabled: !saved })
          ) : (
            <LockButton
              type="primary"
              disabled={!saved}
              loading={busy}
              onClick={() => void next({})}
              data-testid="init-next"
            >
              {t('system:init.next')}
            </LockButton>
          )}
        </Flex>
      </Flex>
    );
  } else {
    body = (
      <Flex vertical gap={16}>
        <Typography.Paragraph style={{ margin: 0 }}>{t('system:init.intro')}</Typography.Paragraph>
        {codeRequired && <SetupCodeField value={setupCode} onChange={setSetupCode} />}
        {inProgress && (
          <Alert
            type="info"
            showIcon
            title={t('system:init.restartNotice', {
              done: inProgress.components_generated,
              total: inProgress.components_total,
            })}
          />
        )}
        <Flex align="center" gap={12} wrap>
          <Typography.Text>{t('system:init.total')}</Typography.Text>
          <InputNumber
            min={MIN_COMPONENTS}
            max={MAX_COMPONENTS}
            precision={0}
            value={total}
            onChange={(value) => setTotal(value ?? DEFAULT_COMPONENTS)}
            data-testid="init-total"
          />
        </Flex>
        <Flex justify="flex-end" gap={8} wrap>
          {inProgress &&
            inProgress.components_generated >= inProgress.components_total &&
            finishButton({ disabled: !codeReady })}
          <LockButton
            type="primary"
            loading={busy}
            disabled={!codeReady}
            onClick={() => void next({ total, restart: inProgress ? true : undefined })}
            data-testid="init-start"
          >
            {t('system:init.start')}
          </LockButton>
        </Flex>
      </Flex>
    );
  }

  return (
    <PublicPage width={640}>
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('system:init.title')}
      </Typography.Title>
      <Steps
        size="small"
        current={current}
        style={{ marginBottom: 24 }}
        items={[
          { title: t('system:init.total') },
          {
            title: t('system:init.stepComponents'),
            content: component ? `${component.index} / ${component.total}` : undefined,
          },
          { title: t('system:init.stepDone') },
        ]}
      />
      {body}
    </PublicPage>
  );
}
