import { Tabs } from 'antd';
import { api } from '@ksp/contracts';
import { useCanCall } from '../components/permissions';
import { useViewSearchParams } from '../components/view-activity';
import { AlarmList } from '../features/alarm/alarm-list';
import { AlarmRules } from '../features/alarm/alarm-rules';
import { ClientLogList } from '../features/log/client-log-list';
import ServerRecords from '../features/log/log-page';
import { useT } from '../i18n/i18n';

/** The search param of the tab; the lists keep it as they write their filters and page. */
const TAB_PARAM = 'tab';
const keepParams = [TAB_PARAM] as const;

/**
 * The log page (`console/log/index`): one tab per list, each from its own feature (features do
 * not import one another, so the page that puts them together lives here). The tab is in the
 * URL (`?tab=client`, `?tab=alarms`, `?tab=rules`; none for the server records), so a reload, "back" and the
 * dashboard's alarm card land on it. The alarm tabs show to holders of `alarm:read`.
 */
export default function LogTabsPage() {
  const t = useT();
  const [params, setParams] = useViewSearchParams();
  const canReadAlarms = useCanCall(api.alarm.list);
  const tabs = [
    { key: 'server', label: t('log:tabs.server'), page: <ServerRecords keepParams={keepParams} /> },
    { key: 'client', label: t('log:tabs.client'), page: <ClientLogList keepParams={keepParams} /> },
    {
      key: 'alarms',
      label: t('log:tabs.alarms'),
      page: <AlarmList keepParams={keepParams} />,
      show: canReadAlarms,
    },
    {
      key: 'rules',
      label: t('log:tabs.rules'),
      page: <AlarmRules keepParams={keepParams} />,
      show: canReadAlarms,
    },
  ].filter((tab) => tab.show !== false);
  const active = tabs.find((tab) => tab.key === params.get(TAB_PARAM))?.key ?? 'server';
  // Another tab starts from its own defaults: the filters of the one left do not follow.
  const choose = (key: string) => setParams(key === 'server' ? {} : { [TAB_PARAM]: key });
  return (
    <Tabs
      activeKey={active}
      onChange={choose}
      destroyOnHidden
      items={tabs.map((tab) => ({
        key: tab.key,
        label: <span data-testid={`log-tab-${tab.key}`}>{tab.label}</span>,
        children: tab.page,
      }))}
    />
  );
}
