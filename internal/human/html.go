package human

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
)

// The pages are self-contained: this style and script are inline, allowed
// by their hashes in the Content-Security-Policy, and nothing is loaded
// from anywhere.

const css = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.4}
body{margin:0;padding:1rem;max-width:40rem;margin-inline:auto}
h1{font-size:1.3rem;margin:.2rem 0 .8rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .8rem;margin:0 0 1rem}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
.msg{border-left:4px solid #4a7bd0;padding:.4rem .7rem;margin:0 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere}
.prompt{padding:.4rem .6rem;border:1px solid #8886;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 1rem}
label{display:block;font-weight:600;margin-bottom:.3rem}
input{box-sizing:border-box;width:100%;font-size:1.1rem;padding:.6rem;border:1px solid #888;border-radius:6px}
button{font-size:1rem;padding:.6rem 1rem;border-radius:6px;border:1px solid #888;margin:.5rem .4rem 0 0;cursor:pointer}
button.go{background:#2f6fde;color:#fff;border-color:#2f6fde;font-weight:600}
form{margin:0}
.row{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.row button{margin:0}
.gap{margin-top:.5rem}.gap2{margin-top:1rem}
.note{font-size:.85rem;opacity:.75;margin-top:1.2rem}
.warn{border:2px solid #b00;border-radius:4px;padding:.6rem;background:#fff1f1;color:#600}
#screen{background:#111;color:#ddd;padding:.5rem;border-radius:6px;overflow:auto;font-size:.8rem;line-height:1.2;white-space:pre;min-height:8rem;margin:0 0 .6rem}
#screen:focus{outline:3px solid #4a7bd0}
#status{min-height:1.2rem;font-size:.9rem}
.ok{color:#1a7f37}.bad{color:#c62828}
`

// script drives a handover page: a browser terminal (xterm.js) shows the
// program's screen from the event stream, with its colours and cursor,
// sends what is typed or pasted to the key endpoint, one request at a
// time in order, and asks the terminal to take the window's size.
// xterm.js adds style elements of its own; they carry the response's
// nonce, which the policy allows (no 'unsafe-inline').
const script = `(function(){
"use strict";
var body=document.body,base=body.getAttribute("data-base"),nonce=body.getAttribute("data-nonce");
var ce=Document.prototype.createElement;
Document.prototype.createElement=function(n,o){var e=ce.call(this,n,o);
 if(String(n).toLowerCase()==="style")e.nonce=nonce;return e;};
var scr=document.getElementById("screen"),box=document.getElementById("term"),st=document.getElementById("status");
var K={enter:"\r",tab:"\t",esc:"\x1b",up:"\x1b[A",down:"\x1b[B",right:"\x1b[C",left:"\x1b[D",
 ctrlc:"\x03",ctrld:"\x04",bs:"\x7f"};
var q=Promise.resolve(),ended=false;
function say(t,c){st.textContent=t;st.className=c||"";}
function post(path,s){
 q=q.then(function(){
  return fetch(base+path,{method:"POST",body:s,cache:"no-store",credentials:"omit",
   headers:{"Content-Type":"application/octet-stream"}}).then(function(r){
   if(!r.ok&&path==="/keys"){return r.text().then(function(t){say("Not sent ("+r.status+"): "+t.trim(),"bad");});}
  });
 }).catch(function(e){say("Not sent: "+e,"bad");});
}
function send(s){if(!ended&&s)post("/keys",s);}
var term=new Terminal({cursorBlink:true,scrollback:0,fontSize:14,
 fontFamily:'ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace'});
var fit=new FitAddon.FitAddon();
term.loadAddon(fit);
term.open(box);
scr.hidden=true;
box.hidden=false;
var sent="";
function size(){
 if(ended)return;
 try{fit.fit();}catch(e){return;}
 var s=term.cols+"x"+term.rows;
 if(s!==sent){sent=s;post("/resize",s);}
}
size();
window.addEventListener("resize",size);
term.onData(send);
term.focus();
Array.prototype.forEach.call(document.querySelectorAll("button[data-k]"),function(b){
 b.addEventListener("click",function(){send(K[b.getAttribute("data-k")]);term.focus();});});
var es=new EventSource(base+"/events");
es.onopen=function(){if(!ended)say("Live. Type into the terminal, then press Done.","ok");};
es.onmessage=function(e){var m=JSON.parse(e.data);
 if(m.cols&&(m.cols!==term.cols||m.rows!==term.rows))term.resize(m.cols,m.rows);
 term.write(m.ansi);
 if(m.ended){ended=true;es.close();term.options.cursorBlink=false;
  if(m.ended==="done")say("Done: the terminal is the agent's again. You can close this page.","ok");
  else say("This page has ended ("+m.ended+"). You can close it.");}};
es.onerror=function(){if(!ended)say("Connection lost; reconnecting…","bad");};
})();`

// hashSource is a CSP source allowing exactly s.
func hashSource(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// handoverCSS is a handover page's style: the pages' own and xterm.js's.
var handoverCSS = css + xtermCSS + `
body.wide{max-width:72rem}
#term{height:min(55vh,40rem);min-height:12rem;background:#000;padding:4px;border-radius:6px;margin:0 0 .6rem}
`

// The policies: nothing from anywhere but the inline style (and, on a
// handover page, the inline scripts, the browser terminal's own style
// elements by the response's nonce, and the page's event stream, key and
// resize endpoints); forms post only to the page itself; no framing.
var cspPlain = "default-src 'none'; style-src " + hashSource(css) + "; img-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// cspHandover is a handover page's policy for a response whose nonce is
// nonce.
func (a *handoverAssets) cspHandover(nonce string) string {
	return a.cspBefore + nonce + a.cspAfter
}

// view is what the page templates show.
type view struct {
	CSS      template.CSS
	Script   template.JS
	Lib      template.JS // the browser terminal, before Script
	Nonce    string      // allows the browser terminal's style elements
	Title    string
	Program  Program
	Message  string
	Prompt   string
	Action   string // the page's path: forms post there
	Expires  string // "in 10 minutes"
	Screen   string
	Text     string // result and error pages
	Class    string // result and error pages: ok or bad
	BackHref string // error pages: back to the page, which is still open
}

var pageTemplates = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>{{.Title}} · yieldshell</title>
<style>{{.CSS}}</style></head>{{end}}

{{define "program"}}<dl>
<dt>Program</dt><dd><code>{{.Program.Command}}</code></dd>
{{if .Program.PID}}<dt>Process</dt><dd>{{if .Program.Name}}{{.Program.Name}}, {{end}}pid {{.Program.PID}}</dd>{{end}}
</dl>
{{if .Message}}<p class="msg">{{.Message}}</p>{{end}}{{end}}

{{define "secret"}}{{template "head" .}}<body><main>
<h1>{{.Title}}</h1>
{{template "program" .}}
<dl><dt>Who reads what you type</dt><dd>{{if .Program.Reader.PID}}<code>{{.Program.Reader.Command}}</code>, pid {{.Program.Reader.PID}}{{else}}unknown{{end}}</dd></dl>
{{if .Program.Reader.Warning}}<p class="warn" role="alert"><strong>Warning:</strong> {{.Program.Reader.Warning}}. Type your password only if you started this yourself and trust it.</p>{{end}}
{{if .Prompt}}<pre class="prompt">{{.Prompt}}</pre>{{end}}
<form method="post" action="{{.Action}}" autocomplete="off">
<label for="secret">Password</label>
<input id="secret" name="secret" type="password" autocomplete="off" autocapitalize="off" autocorrect="off" spellcheck="false" autofocus>
<button class="go" type="submit" name="action" value="submit">Send to the program</button>
</form>
<form method="post" action="{{.Action}}"><input type="hidden" name="action" value="decline"><button type="submit">Decline</button></form>
<p class="note">What you type is typed once into this terminal, and only while the process named above still reads it with echo off. From then on this server hides it in everything the agent can read through it: the output of every command it runs, its screens, logs and answers. It does not stop the process that reads it from keeping, sending or using it as it likes. This page works once and expires {{.Expires}}.</p>
</main></body></html>{{end}}

{{define "handover"}}{{template "head" .}}<body class="wide" data-base="{{.Action}}" data-nonce="{{.Nonce}}"><main>
<h1>{{.Title}}</h1>
{{template "program" .}}
<div id="term" hidden></div>
<pre id="screen" tabindex="0" aria-label="terminal screen">{{.Screen}}</pre>
<p id="status">Connecting…</p>
<div class="row gap">
<button type="button" data-k="esc">Esc</button><button type="button" data-k="tab">Tab</button>
<button type="button" data-k="ctrlc">Ctrl-C</button><button type="button" data-k="ctrld">Ctrl-D</button>
<button type="button" data-k="left">←</button><button type="button" data-k="up">↑</button>
<button type="button" data-k="down">↓</button><button type="button" data-k="right">→</button>
<button type="button" data-k="enter">Enter</button>
</div>
<div class="row gap2">
<form method="post" action="{{.Action}}"><input type="hidden" name="action" value="done"><button class="go" type="submit">Done: give it back</button></form>
<form method="post" action="{{.Action}}"><input type="hidden" name="action" value="decline"><button type="submit">Decline</button></form>
</div>
<p class="note">The agent waits while you hold this terminal; it gets it back when you press Done (or close this page). This page expires {{.Expires}}.</p>
</main><script>{{.Lib}}</script><script>{{.Script}}</script></body></html>{{end}}

{{define "message"}}{{template "head" .}}<body><main>
<h1 class="{{.Class}}">{{.Title}}</h1>
<p>{{.Text}}</p>
{{if .BackHref}}<p><a href="{{.BackHref}}">Back to the page</a></p>{{end}}
<p class="note">You can close this page.</p>
</main></body></html>{{end}}
`))
