import { alarmKeys } from '../api/alarm';
import { useHasPermission } from '../components/permissions';
import { AlarmWidget } from '../features/alarm/alarm-widget';
import DashboardPage from '../features/dashboard/dashboard-page';

const refreshKeys = [alarmKeys.all] as const;

/**
 * The dashboard (`console/dashboard/index`) with the alarm card for holders of `alarm:read`:
 * two features put together, so the page lives here (features do not import one another).
 */
export default function DashboardWithAlarms() {
  const canReadAlarms = useHasPermission('alarm:read');
  return (
    <DashboardPage
      alarms={canReadAlarms ? <AlarmWidget /> : undefined}
      refreshKeys={canReadAlarms ? refreshKeys : []}
    />
  );
}
