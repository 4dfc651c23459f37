import { Form, Switch } from 'antd';
import { ProfileSettingsInput } from '@ksp/contracts';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import { FieldsCard } from './fields-card';
import type { tdePolicy } from '../../i18n/en/tde-policy';

/** A number field of a profile, with the range its contract declares. */
export function NumberField({ name, label, testId }: { name: string[]; label: string; testId: string }) {
  return (
    <WholeNumberField
      name={name}
      label={label}
      range={limitsAt(ProfileSettingsInput, name)}
      style={{ minWidth: 200 }}
      testId={testId}
    />
  );
}

/** An on/off setting of a profile. */
export function SwitchItem({ name, label, testId }: { name: string[]; label: string; testId: string }) {
  return (
    <Form.Item name={name} label={label} valuePropName="checked" style={{ minWidth: 160 }}>
      <Switch data-testid={testId} />
    </Form.Item>
  );
}

/** A field of a settings card: its form path, its label and its test id. */
interface Field {
  name: string[];
  label: keyof typeof tdePolicy.fields;
  testId: string;
}

/** A card of number settings, then switches. */
interface SettingsSection {
  title: keyof typeof tdePolicy.sections;
  numbers: Field[];
  switches: Field[];
}

const field = (name: string[], label: Field['label'], testId: string): Field => ({ name, label, testId });

const SECTIONS: SettingsSection[] = [
  {
    title: 'files',
    numbers: [
      field(['file_settings', 'max_file_size_kb'], 'maxFileSize', 'profile-max-file-size'),
      field(['file_settings', 'max_old_files'], 'maxOldFiles', 'profile-max-old-files'),
    ],
    switches: [field(['file_settings', 'allow_purge'], 'allowPurge', 'profile-allow-purge')],
  },
  {
    title: 'upload',
    numbers: [
      field(['upload_settings', 'connection_timeout_s'], 'connectionTimeout', 'profile-upload-timeout'),
      field(['upload_settings', 'min_interval_s'], 'minInterval', 'profile-min-interval'),
      field(['upload_settings', 'max_interval_s'], 'maxInterval', 'profile-max-interval'),
      field(['upload_settings', 'max_messages'], 'maxMessages', 'profile-max-messages'),
    ],
    switches: [field(['upload_settings', 'drop_if_busy'], 'dropIfBusy', 'profile-drop-if-busy')],
  },
  {
    title: 'duplicates',
    numbers: [
      field(['duplicate_settings', 'suppress_interval_s'], 'suppressInterval', 'profile-suppress-interval'),
      field(['duplicate_settings', 'suppress_threshold'], 'suppressThreshold', 'profile-suppress-threshold'),
    ],
    switches: [],
  },
  {
    title: 'cache',
    numbers: [
      field(['cache_settings', 'max_files'], 'cacheFiles', 'profile-cache-files'),
      field(['cache_settings', 'max_space_mb'], 'cacheSpace', 'profile-cache-space'),
      field(['connect_timeout_s'], 'connectTimeout', 'profile-connect-timeout'),
    ],
    switches: [],
  },
];

/** The profile's number settings: log files, upload, duplicate suppression, cache and timeout. */
export function ProfileNumberCards() {
  const t = useT();
  return SECTIONS.map((s) => (
    <FieldsCard key={s.title} title={t(`tdePolicy:sections.${s.title}`)}>
      {s.numbers.map((f) => (
        <NumberField
          key={f.testId}
          name={f.name}
          label={t(`tdePolicy:fields.${f.label}`)}
          testId={f.testId}
        />
      ))}
      {s.switches.map((f) => (
        <SwitchItem key={f.testId} name={f.name} label={t(`tdePolicy:fields.${f.label}`)} testId={f.testId} />
      ))}
    </FieldsCard>
  ));
}
