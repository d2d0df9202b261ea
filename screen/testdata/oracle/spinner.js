// npm's style: a spinner and a progress line redrawn with CR and EL, then
// the summary.
const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
let i = 0;
const t = setInterval(() => {
  process.stdout.write('\r\x1b[K' + frames[i % frames.length] + ' reify:lodash: timing reifyNode:node_modules/pkg' + i);
  if (++i === 40) {
    clearInterval(t);
    process.stdout.write('\r\x1b[K\nadded 41 packages, and audited 42 packages in 2s\n\nfound \x1b[1m\x1b[32m0\x1b[39m\x1b[22m vulnerabilities\n');
  }
}, 10);
