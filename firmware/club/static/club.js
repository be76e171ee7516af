// Each card draws the live message of one table: firmware/storage/live.py's snapshot, as the phone pages show it.
// Each table comes in its own JSON block, read on its own: one that cannot be read is that table's line only.
const data = {};
document.querySelectorAll('script.table-data').forEach(el=>{const name=el.dataset.table||'?';
  try{const t=JSON.parse(el.textContent);data[name]=(t&&typeof t==='object')?t:{table:name,unreadable:true};}
  catch(e){data[name]={table:name,unreadable:true};}});
// The words around a table follow that table's language (a French table reads French on any board).
const LL = JSON.parse(document.getElementById('labels').textContent);
const ENT={'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'};
function esc(s){return String(s??'').replace(/[&<>"']/g,c=>ENT[c]);}
function list(v){return Array.isArray(v)?v:[];}
function card(t){
  if(t.unreadable){throw new Error('unreadable');}
  const s=t.live||{}, st=t.status||{};
  const L=typeof s.language==='string'&&/^[a-z]{2}$/.test(s.language)&&Object.hasOwn(LL,s.language)
    ?LL[s.language]:LL[LL.board];
  const web=/^https?:[/][/]/.test(st.web||'')?' <a href="'+esc(st.web)+'">'+esc(L.page)+'</a>':'';
  let h='<h2>'+esc(t.table)+(st.online===false?' ('+esc(L.offline)+')':'')+web+'</h2>';
  if(!s.sides||!s.sides.length){return h+'<p>'+esc(s.turn_text||L.nonews)+'</p>';}
  h+='<p>'+esc(s.edition_title||s.edition)+' · '+esc(L.hand)+' '+esc(s.hand)+' · '+esc(s.action_count)+' '
    +esc(L.actions)+'</p>'
    +'<p class="turn">'+esc(s.turn_text||'')+'</p><table><tr><th>'+esc(L.side)+'</th><th>'+esc(s.unit||'miles')
    +'</th><th>'+esc(L.battle)+'</th><th>'+esc(L.hand)+'</th><th>'+esc(L.total)+'</th></tr>';
  list(s.sides).forEach(x=>{x=x||{};const safe=list(x.safeties);
    h+='<tr'+(x.turn?' class="turn"':'')+'><td>'+esc(x.name)
    +(safe.length?'<br><span class="safe">'
      +safe.map(f=>esc((f||{}).name)+((f||{}).coup_fourre?' ('+esc(L.cf)+')':'')).join(', ')+'</span>':'')
    +'</td><td>'+esc(x.miles)
    +(x.limit?'<br><small>'+esc(L.limit)+'</small>':'')+'</td><td>'+esc(x.battle_words||x.battle)
    +'</td><td class="num">'
    +esc(x.hand_points)+'</td><td class="num">'+esc(x.total)+'</td></tr>';});
  h+='</table><div class="words">'+list(s.last_actions).slice(-3).map(a=>esc((a||{}).text)).join('<br>')+'</div>';
  return h;
}
// One table's card, or a line saying it cannot be shown: one bad table never blanks the board.
function safeCard(t){
  try{return card(t);}catch(e){return '<h2>'+esc(t.table)+'</h2><p class="bad">'+esc(LL[LL.board].unreadable)+'</p>';}
}
function draw(){
  const grid=document.getElementById('tables');
  grid.innerHTML=Object.keys(data).sort().map(k=>'<div class="card'+((data[k].status||{}).online===false?' off':'')
    +'" id="t-'+esc(k)+'" data-actions="'+esc((data[k].live||{}).action_count)+'">'+safeCard(data[k])+'</div>')
    .join('');
}
draw();
const es=new EventSource('/events');
es.onopen=()=>{document.body.dataset.live='yes';};  // following the tables (what a test waits for)
es.onmessage=e=>{let m;try{m=JSON.parse(e.data);}catch(err){return;}  // one bad update changes nothing
  if(!m||typeof m.table!=='string')return;
  const t=data[m.table]||(data[m.table]={table:m.table});
  if(m.unreadable){t.unreadable=true;}else{delete t.unreadable;}
  if('live' in m)t.live=m.live; if(m.status)t.status=m.status; draw();};
