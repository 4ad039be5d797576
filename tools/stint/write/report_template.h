/* SPDX-License-Identifier: MIT */
/*
 * report_template.h - the static parts of the HTML report (CSS and the
 * viewer script), as C strings. No network, no external assets: everything
 * the page needs is in the one file. The script reads the JSON in
 * <script id="stint-data">, draws the timeline (one row group per lane,
 * wheel = zoom at the cursor, drag = pan, double-click = reset) and the
 * flame graph (click = zoom into a frame, click the background = reset), and
 * marks success with <div id="stint-ready"> (errors go to #stint-error).
 */
#ifndef STINT_CLI_REPORT_TEMPLATE_H
#define STINT_CLI_REPORT_TEMPLATE_H

#include <stddef.h>

static const char stint_report_css[] =
    "body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}"
    ".src{color:#555}ul.notes li{margin:2px 0}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}td.n,th.n{text-align:left}"
    "th{background:#f3f3f3}canvas{display:block;border:1px solid #ccc;width:100%}"
    "#tlwrap{max-height:70vh;overflow-y:auto;border:1px solid #ccc}#tlspace{position:relative}"
    "#timeline{position:sticky;top:0;border:0}"
    "#tip{position:fixed;pointer-events:none;background:#333;color:#fff;padding:2px 6px;"
    "border-radius:3px;font-size:12px;display:none;white-space:pre}"
    ".hint{color:#666;font-size:12px}#stint-ready{display:none}#stint-error{color:#b00}";

/* split in pieces: ISO C limits one string literal to 4095 bytes */
static const char *const stint_report_js[] = {
    "(function(){'use strict';\n"
    "var D=JSON.parse(document.getElementById('stint-data').textContent);\n"
    "var tip=document.getElementById('tip');\n"
    "function color(i){var h=(i*2654435761>>>0)%360;return 'hsl('+h+',55%,62%)';}\n"
    "function fmt(ns){var a=Math.abs(ns);if(a>=1e9)return (ns/1e9).toFixed(3)+' s';"
    "if(a>=1e6)return (ns/1e6).toFixed(3)+' ms';if(a>=1e3)return (ns/1e3).toFixed(3)+' us';return ns+' ns';}\n"
    "function fit(c,h){var r=window.devicePixelRatio||1;var w=c.clientWidth||800;c.width=w*r;c.height=h*r;"
    "c.style.height=h+'px';var g=c.getContext('2d');g.setTransform(r,0,0,r,0,0);return {g:g,w:w,h:h};}\n"
    "function label(g,t,x,y,w){if(w<24)return;g.fillStyle='#111';g.save();g.beginPath();g.rect(x,y,w,14);g.clip();"
    "g.fillText(t,x+2,y+11);g.restore();}\n"
    ,
    /* ---- timeline ---- */
    "var RH=16,HH=18,LW=0;var lanes=D.lanes,S=D.slices,N=D.names;var drawn=0;\n"
    "var top=[],y=0;for(var i=0;i<lanes.length;i++){top.push(y);y+=HH+RH*(Math.min(lanes[i].depth,D.max_rows)+1)+4;}\n"
    /* the lanes scroll in #tlwrap (at most 70% of the window high) over a
     * spacer of their full height; the canvas, sticky at its top, is only
     * as high as the view and draws the lanes under it: a canvas as high as
     * all lanes (over ~65k px: 160 threads of 25 levels) is never drawn */
    "var TH=Math.max(y,40)+16;var tl=document.getElementById('timeline'),wrap=document.getElementById('tlwrap');\n"
    "document.getElementById('tlspace').style.height=TH+'px';\n"
    "var v0=0,v1=Math.max(D.span_ns,1);\n"
    "function drawTL(){var vh=Math.min(TH,wrap.clientHeight||TH),sy=Math.min(wrap.scrollTop,TH-vh);"
    "var c=fit(tl,vh),g=c.g,w=c.w;g.clearRect(0,0,w,vh);g.font='11px sans-serif';"
    "var sc=w/(v1-v0);drawn=0;"
    "for(var l=0;l<lanes.length;l++){var ly=top[l]-sy;if(ly+HH<0||ly>vh)continue;"
    "g.fillStyle='#f4f4f4';g.fillRect(0,ly,w,HH);g.fillStyle='#333';g.fillText(lanes[l].label,4,ly+13);}"
    "for(var k=0;k<S.length;k+=5){var ln=S[k],d=S[k+1],t=S[k+2],du=S[k+3],nm=S[k+4];"
    "if(d>D.max_rows)continue;var yy=top[ln]+HH+d*RH-sy;if(yy+RH<0||yy>vh-16)continue;"
    "var e=t+(du<0?D.span_ns-t:du);if(e<v0||t>v1)continue;"
    "var x=(t-v0)*sc,x2=(e-v0)*sc;if(x<0)x=0;if(x2>w)x2=w;var ww=Math.max(x2-x,1);"
    "g.fillStyle=color(nm);g.fillRect(x,yy,ww,RH-1);label(g,N[nm],x,yy,ww);drawn++;}"
    "g.fillStyle='#fff';g.fillRect(0,vh-16,w,16);g.fillStyle='#666';"
    "g.fillText(fmt(v0)+' .. '+fmt(v1)+'  (width '+fmt(v1-v0)+')'+(TH>vh?'; lanes '+lanes.length+', scroll for more':''),"
    "4,vh-4);}\n"
    "function hitTL(mx,my){var w=tl.clientWidth,sc=w/(v1-v0),sy=wrap.scrollTop;"
    "for(var k=S.length-5;k>=0;k-=5){var ln=S[k],d=S[k+1];"
    "var yy=top[ln]+HH+d*RH-sy;if(my<yy||my>yy+RH)continue;var t=S[k+2],du=S[k+3],e=t+(du<0?D.span_ns-t:du);"
    "var x=(t-v0)*sc,x2=(e-v0)*sc;if(mx>=x-1&&mx<=x2+1)return k;}return -1;}\n"
    "wrap.addEventListener('scroll',function(){drawTL();});\n"
    ,
    "tl.addEventListener('wheel',function(ev){ev.preventDefault();"
    "if(ev.shiftKey){wrap.scrollTop+=ev.deltaY||ev.deltaX;return;}var r=tl.getBoundingClientRect();"
    "var f=(ev.clientX-r.left)/r.width;var at=v0+f*(v1-v0);var z=ev.deltaY<0?0.8:1.25;var nw=Math.max((v1-v0)*z,10);"
    "v0=at-f*nw;v1=v0+nw;drawTL();},{passive:false});\n"
    "var drag=null;tl.addEventListener('mousedown',function(ev){drag={x:ev.clientX,a:v0,b:v1};});\n"
    "window.addEventListener('mouseup',function(){drag=null;});\n"
    "tl.addEventListener('mousemove',function(ev){var r=tl.getBoundingClientRect();if(drag){var dx=ev.clientX-drag.x;"
    "var dt=dx/r.width*(drag.b-drag.a);v0=drag.a-dt;v1=drag.b-dt;drawTL();return;}"
    "var k=hitTL(ev.clientX-r.left,ev.clientY-r.top);if(k<0){tip.style.display='none';return;}"
    "tip.textContent=N[S[k+4]]+'\\n'+(S[k+3]<0?'unfinished':fmt(S[k+3]))+' at '+fmt(S[k+2])+'\\n'+lanes[S[k]].label;"
    "tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';tip.style.display='block';});\n"
    "tl.addEventListener('mouseleave',function(){tip.style.display='none';});\n"
    "tl.addEventListener('dblclick',function(){v0=0;v1=Math.max(D.span_ns,1);drawTL();});\n"
    ,
    /* ---- flame graph (icicle, roots at the top) ---- */
    "var F=D.flame,fc=document.getElementById('flame');var kids=[];for(var i=0;i<F.length;i++)kids.push([]);\n"
    "var maxd=0;for(var i=0;i<F.length;i++){if(F[i][0]>=0)kids[F[i][0]].push(i);if(F[i][4]>maxd)maxd=F[i][4];}\n"
    "var focus=0,boxes=[];var FH=Math.min(maxd+1,D.max_rows+1)*RH+RH+4;\n"
    "function drawFG(){var c=fit(fc,FH),g=c.g,w=c.w;g.clearRect(0,0,w,FH);g.font='11px sans-serif';boxes=[];"
    "var tot=F[focus][2];if(tot<=0){g.fillStyle='#666';g.fillText('no finished spans',4,14);return;}"
    "var st=[[focus,0,w]];while(st.length){var it=st.pop(),n=it[0],x=it[1],ww=it[2];var d=F[n][4]-F[focus][4];"
    "if(d>D.max_rows)continue;if(n!==0){g.fillStyle=n===focus?'#ddd':color(F[n][1]);g.fillRect(x,d*RH,Math.max(ww-1,1),RH-1);"
    "label(g,N[F[n][1]],x,d*RH,ww);boxes.push([x,d*RH,ww,n]);}else{g.fillStyle='#eee';g.fillRect(0,0,w,RH-1);"
    "g.fillStyle='#333';g.fillText('all host root spans (sum): '+fmt(tot),4,11);}"
    "var cx=x;for(var j=0;j<kids[n].length;j++){var ch=kids[n][j];var cw=ww*F[ch][2]/F[n][2];if(cw>=0.5)st.push([ch,cx,cw]);cx+=cw;}}"
    "g.fillStyle='#666';g.fillText('width = sum of the call durations at each path (host clock); click a frame to zoom, the background to reset',4,FH-4);}\n"
    ,
    "fc.addEventListener('click',function(ev){var r=fc.getBoundingClientRect(),mx=ev.clientX-r.left,my=ev.clientY-r.top;"
    "for(var i=0;i<boxes.length;i++){var b=boxes[i];if(mx>=b[0]&&mx<=b[0]+b[2]&&my>=b[1]&&my<=b[1]+RH){focus=b[3];drawFG();return;}}"
    "focus=0;drawFG();});\n"
    "fc.addEventListener('mousemove',function(ev){var r=fc.getBoundingClientRect(),mx=ev.clientX-r.left,my=ev.clientY-r.top;"
    "for(var i=0;i<boxes.length;i++){var b=boxes[i];if(mx>=b[0]&&mx<=b[0]+b[2]&&my>=b[1]&&my<=b[1]+RH){var n=b[3];"
    "tip.textContent=N[F[n][1]]+'\\n'+F[n][5]+' calls at this path: sum '+fmt(F[n][2])+', self (sum over the calls) '+fmt(F[n][3]);"
    "tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';tip.style.display='block';return;}}"
    "tip.style.display='none';});\n"
    "fc.addEventListener('mouseleave',function(){tip.style.display='none';});\n"
    "function all(){drawTL();drawFG();}\n"
    "window.addEventListener('resize',all);all();\n"
    "var ok=document.createElement('div');ok.id='stint-ready';ok.setAttribute('data-drawn',String(drawn));"
    "ok.setAttribute('data-lanes',String(lanes.length));var rc=tl.getBoundingClientRect();"
    "ok.setAttribute('data-timeline-rect',[rc.left+window.scrollX,rc.top+window.scrollY,rc.width,rc.height].map(Math.round).join(','));ok.textContent='drawn '+drawn;document.body.appendChild(ok);\n"
    "})();\n",
    NULL};

#endif
