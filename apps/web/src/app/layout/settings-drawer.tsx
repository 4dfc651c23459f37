import { Button, ColorPicker, Drawer, Flex, Segmented, Switch, Typography } from 'antd';
import { useT } from '../../i18n/i18n';
import { useLayoutState, type ComponentSize } from '../layout-state';
import { useSettings, type Settings } from '../settings';

const presetColors = ['#1677ff', '#13c2c2', '#52c41a', '#fa8c16', '#f5222d', '#722ed1', '#2f54eb', '#304156'];

type Flag = Exclude<keyof Settings, 'theme'>;

/** Page style settings: theme color, the shell's switches and the component size. */
export function SettingsDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useT();
  const { settings, change, reset } = useSettings();
  const { size, setSize } = useLayoutState();

  const flags: { key: Flag; label: string }[] = [
    { key: 'showSettings', label: t('layout:settings.showSettings') },
    { key: 'tagsView', label: t('layout:settings.tagsView') },
    { key: 'fixedHeader', label: t('layout:settings.fixedHeader') },
    { key: 'sidebarLogo', label: t('layout:settings.sidebarLogo') },
  ];

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('layout:settings.title')}
      size={300}
      data-testid="settings-drawer"
    >
      <Flex vertical gap={18}>
        <Flex justify="space-between" align="center">
          <Typography.Text>{t('layout:settings.theme')}</Typography.Text>
          <ColorPicker
            value={settings.theme}
            disabledAlpha
            presets={[{ label: t('layout:settings.theme'), colors: presetColors }]}
            onChangeComplete={(color) => change({ theme: color.toHexString() })}
          />
        </Flex>
        {flags.map((flag) => (
          <Flex key={flag.key} justify="space-between" align="center">
            <Typography.Text>{flag.label}</Typography.Text>
            <Switch
              checked={settings[flag.key]}
              data-testid={`setting-${flag.key}`}
              onChange={(checked) => change({ [flag.key]: checked })}
            />
          </Flex>
        ))}
        <Flex vertical gap={6}>
          <Typography.Text>{t('layout:settings.size')}</Typography.Text>
          <Segmented<ComponentSize>
            block
            value={size}
            onChange={setSize}
            options={[
              { value: 'small', label: t('layout:settings.small') },
              { value: 'medium', label: t('layout:settings.medium') },
              { value: 'large', label: t('layout:settings.large') },
            ]}
          />
        </Flex>
        <Button onClick={reset}>{t('layout:settings.reset')}</Button>
      </Flex>
    </Drawer>
  );
}
