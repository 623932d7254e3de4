package framework

import (
	"slices"
	"sync"
)

// This file numbers image names across a snapshot and its clones, so that
// ImageLocality matches a node's images by number (NodeResources.ImageMask,
// Snapshot.ImageTable) instead of hashing names into each node's map.

// imageNumbering gives each image name seen on a node of a snapshot family
// a number, for good: a number means the same name in every snapshot of
// the family.
type imageNumbering struct {
	mu  sync.Mutex
	ids map[string]int32
}

// nodeImage is one image name of a node, by number, with its size.
type nodeImage struct {
	id   int32
	size int64
}

// number sets ni's numbered images and their mask from ni.ImageSizes.
func (x *imageNumbering) number(ni *NodeInfo) {
	ni.images, ni.imageMask = nil, 0
	if len(ni.ImageSizes) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ids == nil {
		x.ids = map[string]int32{}
	}
	ni.images = make([]nodeImage, 0, len(ni.ImageSizes))
	// In the node's order (numbers do not depend on map order); a name
	// listed twice keeps ImageSizes' size.
	for _, img := range ni.node.Status.Images {
	names:
		for _, name := range img.Names {
			id, ok := x.ids[name]
			if !ok {
				id = int32(len(x.ids))
				x.ids[name] = id
			}
			for _, have := range ni.images {
				if have.id == id {
					continue names
				}
			}
			ni.images = append(ni.images, nodeImage{id: id, size: ni.ImageSizes[name]})
			ni.imageMask |= ImageMaskBit(id)
		}
	}
}

// ImageMaskBit returns the bit of NodeResources.ImageMask that stands for
// the image numbered id.
func ImageMaskBit(id int32) uint64 { return 1 << (uint32(id) & 63) }

// ImageID returns the number of the image name, the same in the snapshot
// and its clones, or -1 when no node of them has held the image. It is safe
// for concurrent use.
func (s *Snapshot) ImageID(name string) int32 {
	x := s.imageIDs
	x.mu.Lock()
	defer x.mu.Unlock()
	if id, ok := x.ids[name]; ok {
		return id
	}
	return -1
}

// ImageTable lists the images of every node of a snapshot by number
// (ImageID), in one array in node order, so that looking up many nodes'
// images reads contiguous memory instead of each NodeInfo. Read-only.
type ImageTable struct {
	start  []int32 // node k's images are images[start[k]:start[k+1]]
	images []nodeImage
	// The image numbered id is on the nodes holders[byImage[id]:byImage[id+1]].
	byImage []int32
	holders []ImageHolder
}

// ImageHolder is a node holding an image: its position in the snapshot
// (Snapshot.Nodes) and the image's size there.
type ImageHolder struct {
	Node int32
	Size int64
}

// Holders returns the nodes holding the image numbered id, in node order,
// with the image's size on each (none when no node of the snapshot holds
// it). Read-only.
func (t *ImageTable) Holders(id int32) []ImageHolder {
	if id < 0 || int(id)+1 >= len(t.byImage) {
		return nil
	}
	return t.holders[t.byImage[id]:t.byImage[id+1]]
}

// Entries returns the number of images held over all nodes (an image on
// two nodes counts twice).
func (t *ImageTable) Entries() int { return len(t.images) }

// Size returns the size of the image numbered id on the node at position
// k, and whether the node holds it.
func (t *ImageTable) Size(k int, id int32) (int64, bool) {
	for _, img := range t.images[t.start[k]:t.start[k+1]] {
		if img.id == id {
			return img.size, true
		}
	}
	return 0, false
}

// ImageTable returns the snapshot's image table, computing it once per
// snapshot (and again after nodes are added or removed, or an update
// changes a node's images). It is safe for concurrent use.
func (s *Snapshot) ImageTable() *ImageTable {
	s.topoMu.Lock()
	defer s.topoMu.Unlock()
	if s.imageTable != nil {
		return s.imageTable
	}
	t := &ImageTable{start: make([]int32, len(s.nodes)+1)}
	total := 0
	for _, n := range s.nodes {
		total += len(n.images)
	}
	t.images = make([]nodeImage, 0, total)
	for k, n := range s.nodes {
		t.images = append(t.images, n.images...)
		t.start[k+1] = int32(len(t.images))
	}
	// The holders of each image, counted then placed in node order.
	maxID := int32(-1)
	for _, img := range t.images {
		maxID = max(maxID, img.id)
	}
	t.byImage = make([]int32, maxID+2)
	for _, img := range t.images {
		t.byImage[img.id+1]++
	}
	for id := 1; id < len(t.byImage); id++ {
		t.byImage[id] += t.byImage[id-1]
	}
	t.holders = make([]ImageHolder, len(t.images))
	next := slices.Clone(t.byImage[:len(t.byImage)-1])
	for k := range s.nodes {
		for _, img := range t.images[t.start[k]:t.start[k+1]] {
			t.holders[next[img.id]] = ImageHolder{Node: int32(k), Size: img.size}
			next[img.id]++
		}
	}
	s.imageTable = t
	return t
}
