import { TranslationOutlined } from '@ant-design/icons';
import { changeLanguage, currentLanguage, useT } from '../i18n/i18n';
import { languages, type Language } from '../i18n/language';
import { ChoiceMenu } from './choice-menu';

/** English / 中文 switch; the choice goes to the `language` cookie. */
export function LanguageSwitch({ showLabel = false }: { showLabel?: boolean }) {
  const t = useT();
  const current = currentLanguage();
  const label: Record<Language, string> = { en: t('common:language.en'), zh: t('common:language.zh') };
  return (
    <ChoiceMenu
      current={current}
      choices={languages.map((language) => ({
        key: language,
        label: <span data-testid={`lang-${language}`}>{label[language]}</span>,
      }))}
      onChoose={(key) => void changeLanguage(key === 'zh' ? 'zh' : 'en')}
      icon={<TranslationOutlined />}
      ariaLabel={t('common:language.label')}
      testId="lang-switch"
    >
      {showLabel ? label[current] : null}
    </ChoiceMenu>
  );
}
