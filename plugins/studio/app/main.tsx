import { render } from 'preact';
import { App } from './App';
import { readSettings } from './settings';
import './styles.css';

render(<App settings={readSettings()} />, document.getElementById('studio')!);
