import { TranslationOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { changeLanguage, currentLanguage, useT } from '../i18n/i18n';
import { languages, type Language } from '../i18n/language';

/** English / 中文 switch; the choice goes to the `language` cookie. */
export function LanguageSwitch({ showLabel = false }: { showLabel?: boolean }) {
  const t = useT();
  const current = currentLanguage();
  const label: Record<Language, string> = { en: t('common:language.en'), zh: t('common:language.zh') };
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [current],
        items: languages.map((language) => ({
          key: language,
          label: <span data-testid={`lang-${language}`}>{label[language]}</span>,
        })),
        onClick: ({ key }) => void changeLanguage(key === 'zh' ? 'zh' : 'en'),
      }}
    >
      <Button
        type="text"
        icon={<TranslationOutlined />}
        aria-label={t('common:language.label')}
        data-testid="lang-switch"
      >
        {showLabel ? label[current] : null}
      </Button>
    </Dropdown>
  );
}
