import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './app/global.css';
import { i18nReady } from './i18n/i18n';
import { App } from './app/app';
import { installErrorLog, reactErrorLogOptions } from './app/error-log';
import { createAppRouter } from './app/router';
import { wireApp } from './app/wiring';

// Error logging is for production only (docs/console.md#constants).
const production = import.meta.env.PROD;
installErrorLog(production);

const router = createAppRouter();
wireApp(router);

const container = document.getElementById('root');
if (!container) throw new Error('No #root element');

// A Chinese console shows once its catalogue is loaded; an English one at once.
void i18nReady.finally(() =>
  createRoot(container, production ? reactErrorLogOptions : {}).render(
    <StrictMode>
      <App router={router} />
    </StrictMode>,
  ),
);
